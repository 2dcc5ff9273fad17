/** /virtualMachineDetails/:id — details, resource usage and actions of one VM. */
import { Download, Eye, EyeOff, Monitor, Play, RefreshCw, RotateCcw, Square, Trash2, TrendingUp, Type } from 'lucide-react';
import { useEffect, useState, type ReactNode } from 'react';
import { useNavigate, useParams } from 'react-router';
import { toast } from 'react-toastify';
import { ERRORS, TEXT, withDetail } from '@portal/contract/messages';
import { Button } from '../../../components/ui/Button.tsx';
import { DeleteConfirmationModal } from '../../../components/ui/DeleteConfirmationModal.tsx';
import { PageLayout } from '../../../components/ui/PageLayout.tsx';
import { errorMessage } from '../../../lib/api.ts';
import { formatDate } from '../../../lib/dates.ts';
import { fetchPassword, fetchPrivateKey, useDeleteVm, useVmDetails } from '../api/vms.ts';
import { CopyButton } from '../components/CopyButton.tsx';
import { StatusBadge } from '../components/StatusBadge.tsx';
import { ConfirmActionDialog, RenameDialog, UpgradeDialog } from '../components/VmActionDialogs.tsx';

type Dialog = 'start' | 'stop' | 'reset' | 'rename' | 'upgrade' | 'delete' | null;

function Card({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section aria-label={title} className="rounded-lg border border-slate-200 bg-white shadow-sm">
      <h2 className="border-b border-slate-200 px-4 py-3 font-semibold text-slate-900">{title}</h2>
      <div className="p-4">{children}</div>
    </section>
  );
}

function Item({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div>
      <dt className="text-xs font-medium uppercase tracking-wide text-slate-500">{label}</dt>
      <dd className="mt-1 flex items-center gap-1 text-sm text-slate-900" data-label={label}>
        {children}
      </dd>
    </div>
  );
}

function Bar({ label, percent, text }: { label: string; percent: number; text: string }) {
  return (
    <div className="space-y-1">
      <div className="flex justify-between text-sm">
        <span className="font-medium text-slate-700">{label}</span>
        <span className="text-slate-600" data-usage={label}>
          {text}
        </span>
      </div>
      <div className="h-2 rounded-full bg-slate-100">
        <div className="h-2 rounded-full bg-brand-600 transition-all" style={{ width: `${Math.min(100, Math.max(0, percent))}%` }} />
      </div>
    </div>
  );
}

export function VmDetailsPage() {
  const navigate = useNavigate();
  const { virtualMachineId } = useParams();
  const id = Number(virtualMachineId);
  const valid = Number.isInteger(id) && id > 0;
  const details = useVmDetails(valid ? id : 0);
  const del = useDeleteVm();
  const [dialog, setDialog] = useState<Dialog>(null);
  const [password, setPassword] = useState<string | null>(null);
  const [deleteError, setDeleteError] = useState<string | null>(null);

  useEffect(() => {
    if (!valid) navigate(-1);
  }, [valid, navigate]);

  const data = details.data;
  const vm = data?.virtualMachine;
  const status = data?.status;

  async function refresh() {
    toast.info(TEXT.refreshingVm);
    await details.refetch();
  }
  async function showPassword() {
    try {
      setPassword((await fetchPassword(id)).sshPassword);
    } catch (err) {
      // The password fetch failure is only logged (SPEC point 8).
      console.error(err);
    }
  }
  async function downloadKey() {
    try {
      const { privateKey } = await fetchPrivateKey(id);
      const url = URL.createObjectURL(new Blob([privateKey], { type: 'application/x-pem-file' }));
      const a = document.createElement('a');
      a.href = url;
      a.download = 'privateKey.pem';
      a.click();
      URL.revokeObjectURL(url);
    } catch (err) {
      toast.error(errorMessage(err));
    }
  }
  async function confirmDelete() {
    setDeleteError(null);
    try {
      await del.mutateAsync(id);
      toast.success(TEXT.vmDeleted);
      navigate(-1);
    } catch (err) {
      setDeleteError(errorMessage(err));
    }
  }

  const running = status === 'Running';
  const consoleEnabled = running && !!data?.consoleAvailable;
  const usage = data?.usage;

  return (
    <PageLayout title={vm?.name ?? 'Loading...'} secondaryTitle="Virtual machine" onBack={() => navigate(-1)}>
      {details.error ? (
        <p role="alert" className="text-sm text-red-600">
          {withDetail(ERRORS.fetchVmDetails, errorMessage(details.error))}
        </p>
      ) : !vm || !status ? (
        <p className="text-sm text-slate-500">Loading...</p>
      ) : (
        <div className="grid gap-6 xl:grid-cols-3">
          <div className="xl:col-span-2">
            <Card title="Details">
              <dl className="grid gap-4 sm:grid-cols-2">
                <Item label="Name">{vm.name}</Item>
                <Item label="Size">{vm.configuration}</Item>
                <Item label="Country">{vm.country}</Item>
                <Item label="Region">{vm.region}</Item>
                <Item label="Image">{vm.image}</Item>
                <Item label="Created At">{formatDate(vm.createdAt)}</Item>
                <Item label="CPU">{`${vm.cpu} cores`}</Item>
                <Item label="Last Updated At">{formatDate(vm.updatedAt)}</Item>
                <Item label="RAM">{`${vm.ram} GB`}</Item>
                <Item label="Status">
                  <StatusBadge status={status} />
                  <button type="button" aria-label="Refresh status" onClick={() => void refresh()} className="rounded p-1 text-slate-400 hover:bg-slate-100 hover:text-slate-700">
                    <RefreshCw className="h-4 w-4" />
                  </button>
                </Item>
                <Item label="Disk">{`${vm.disk} GB`}</Item>
                <Item label="Password">
                  <span className="font-mono" data-testid="vm-password">
                    {password === null ? '••••••••••' : password || TEXT.none}
                  </span>
                  <button
                    type="button"
                    aria-label={password === null ? 'Show password' : 'Hide password'}
                    onClick={() => (password === null ? void showPassword() : setPassword(null))}
                    className="rounded p-1 text-slate-400 hover:bg-slate-100 hover:text-slate-700"
                  >
                    {password === null ? <Eye className="h-4 w-4" /> : <EyeOff className="h-4 w-4" />}
                  </button>
                  <CopyButton label="Password" value={async () => password ?? (await fetchPassword(id)).sshPassword} />
                </Item>
                <Item label="Public IP">
                  <span className="font-mono">{vm.network.publicIp ?? '—'}</span>
                  {vm.network.publicIp && <CopyButton label="Public IP" value={vm.network.publicIp} />}
                </Item>
                <Item label="Private IP">
                  <span className="font-mono">{vm.network.privateIp ?? '—'}</span>
                  {vm.network.privateIp && <CopyButton label="Private IP" value={vm.network.privateIp} />}
                </Item>
              </dl>
              {data.errorReason && (
                <p role="alert" className="mt-4 rounded-md bg-red-50 px-3 py-2 text-sm text-red-700">
                  {data.errorReason}
                </p>
              )}
            </Card>
          </div>
          <div className="space-y-6">
            <Card title="Resource Usage">
              <div className="space-y-4">
                <Bar label="CPU" percent={usage?.cpuUsage ?? 0} text={usage?.cpuUsage ? `${usage.cpuUsage.toFixed(1)}% of ${vm.cpu} cores` : '-'} />
                <Bar label="Memory" percent={usage?.ramUsage ? (usage.ramUsage / vm.ram) * 100 : 0} text={usage?.ramUsage ? `${usage.ramUsage.toFixed(1)} / ${vm.ram} GB` : '-'} />
              </div>
            </Card>
            <Card title="Actions">
              <div className="grid grid-cols-2 gap-2">
                <span title={consoleEnabled ? undefined : TEXT.consoleUnavailable}>
                  <Button variant="secondary" className="w-full" disabled={!consoleEnabled} onClick={() => window.open(`${document.baseURI.replace(/\/$/, '')}/virtualMachineConsole/${id}`, '_blank')}>
                    <Monitor className="h-4 w-4" /> Console
                  </Button>
                </span>
                <Button variant="secondary" onClick={() => void downloadKey()}>
                  <Download className="h-4 w-4" /> Download Private Key
                </Button>
                {running ? (
                  <Button variant="secondary" onClick={() => setDialog('stop')}>
                    <Square className="h-4 w-4" /> Stop
                  </Button>
                ) : (
                  <Button variant="secondary" disabled={status !== 'Stopped' && status !== 'Shutoff'} onClick={() => setDialog('start')}>
                    <Play className="h-4 w-4" /> Start
                  </Button>
                )}
                <Button variant="secondary" disabled={!running} onClick={() => setDialog('reset')}>
                  <RotateCcw className="h-4 w-4" /> Reset
                </Button>
                <Button variant="secondary" onClick={() => setDialog('upgrade')}>
                  <TrendingUp className="h-4 w-4" /> Upgrade
                </Button>
                <Button variant="secondary" onClick={() => setDialog('rename')}>
                  <Type className="h-4 w-4" /> Rename
                </Button>
                <Button variant="danger" className="col-span-2" onClick={() => setDialog('delete')}>
                  <Trash2 className="h-4 w-4" /> Delete
                </Button>
              </div>
            </Card>
          </div>
        </div>
      )}
      {(dialog === 'start' || dialog === 'stop' || dialog === 'reset') && <ConfirmActionDialog action={dialog} vmId={id} onClose={() => setDialog(null)} onDone={() => details.refetch()} />}
      {dialog === 'rename' && vm && <RenameDialog vmId={id} currentName={vm.name} onClose={() => setDialog(null)} />}
      {dialog === 'upgrade' && vm && <UpgradeDialog vmId={id} currentCpu={vm.cpu} onClose={() => setDialog(null)} />}
      <DeleteConfirmationModal
        open={dialog === 'delete'}
        name={vm?.name ?? ''}
        item="virtual machine"
        loading={del.isPending}
        error={deleteError}
        onConfirm={() => void confirmDelete()}
        onCancel={() => {
          setDeleteError(null);
          setDialog(null);
        }}
      />
    </PageLayout>
  );
}
