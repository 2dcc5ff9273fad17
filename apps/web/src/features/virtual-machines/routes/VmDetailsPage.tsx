/**
 * /virtualMachineDetails/:id — one VM in four sections (issue 25 item 4), reached from a section bar: Overview (the
 * spec's Details, Resource Usage and Actions cards, and this month so far), Graphs, Snapshots and Settings (SSH
 * access). The action dialogs (the delete confirmation too) and the Snapshots card load as chunks of their own
 * (their forms bring Radix's dialog, react-hook-form, the contract's schemas and the create page's key picker), and
 * the action table comes from the contract's zod-free vm-actions.ts, so the page's code holds no zod and it is
 * interactive sooner (bench/web-load: details with 30 days of history within 1 s).
 */
import Download from 'lucide-react/icons/download';
import Eye from 'lucide-react/icons/eye';
import EyeOff from 'lucide-react/icons/eye-off';
import Monitor from 'lucide-react/icons/monitor';
import HardDriveDownload from 'lucide-react/icons/hard-drive-download';
import Play from 'lucide-react/icons/play';
import Power from 'lucide-react/icons/power';
import RefreshCw from 'lucide-react/icons/refresh-cw';
import RotateCcw from 'lucide-react/icons/rotate-ccw';
import Square from 'lucide-react/icons/square';
import Trash2 from 'lucide-react/icons/trash-2';
import TrendingUp from 'lucide-react/icons/trending-up';
import Type from 'lucide-react/icons/type';
import type { LucideIcon } from 'lucide-react';
import { lazy, Suspense, useEffect, useState, type ReactNode } from 'react';
import { useParams } from 'react-router';
import { toast } from 'react-toastify';
import { ERRORS, SSH_KEY_TEXT, TEXT } from '@portal/contract/messages';
import type { Permission } from '@portal/contract/permissions';
import { VM_ACTIONS, type VmActionName, type VmStatus } from '@portal/contract/vm-actions';
import { shownVmActions, vmActionRefusal } from '../vm-actions.ts';
import { Button } from '../../../components/ui/Button.tsx';
import { LoadFailure, failureTitle } from '../../../components/ui/LoadFailure.tsx';
import { PageLayout } from '../../../components/ui/PageLayout.tsx';
import { errorMessage } from '../../../lib/api.ts';
import { formatDate } from '../../../lib/dates.ts';
import { useBack } from '../../../lib/use-back.ts';
import { fetchPassword, fetchPrivateKey, isConfirmedAction, useDeleteVm, useVmDetails } from '../api/vms.ts';
import { CopyButton } from '../../../components/ui/CopyButton.tsx';
import { StatusBadge } from '../components/StatusBadge.tsx';
import { VmGraphsSection } from '../components/graphs/VmGraphsSection.tsx';
import { VmMonthCard } from '../components/VmMonthCard.tsx';
import { SectionNav, type PageSection } from '../components/SectionNav.tsx';
import { KeepBackupsChoice } from '../components/KeepBackupsChoice.tsx';

/** The dialogs' chunk: asked for when an action button is pointed at or focused, and when a dialog opens. */
const loadDialogs = () => import('../components/VmActionDialogs.tsx');
/**
 * The delete confirmation's chunk, asked for with the other dialogs': its dialog brings Radix's dialog and, through
 * the step-up field, react-hook-form (~30 KB gzip) that the page's first paint does not need.
 */
const loadDeleteDialog = () => import('../../../components/ui/DeleteConfirmationModal.tsx');
const preloadDialogs = () => void Promise.all([loadDialogs(), loadDeleteDialog()]).catch(() => {});
const DeleteConfirmationModal = lazy(() => loadDeleteDialog().then((m) => ({ default: m.DeleteConfirmationModal })));
const ConfirmActionDialog = lazy(() => loadDialogs().then((m) => ({ default: m.ConfirmActionDialog })));
const RebuildDialog = lazy(() => loadDialogs().then((m) => ({ default: m.RebuildDialog })));
const RenameDialog = lazy(() => loadDialogs().then((m) => ({ default: m.RenameDialog })));
const UpgradeDialog = lazy(() => loadDialogs().then((m) => ({ default: m.UpgradeDialog })));
const SnapshotsCard = lazy(() => import('../components/SnapshotsCard.tsx').then((m) => ({ default: m.SnapshotsCard })));
// Backups (issue 24 item 2) beside the snapshots, in the same section and loaded at the same time.
const BackupsCard = lazy(() => import('../components/BackupsCard.tsx').then((m) => ({ default: m.BackupsCard })));
// Its schedule (decision 0023) under it.
const BackupScheduleCard = lazy(() =>
  import('../components/BackupScheduleCard.tsx').then((m) => ({ default: m.BackupScheduleCard })),
);

const SECTIONS: readonly PageSection[] = [
  { id: 'overview', label: 'Overview' },
  { id: 'graphs', label: 'Graphs' },
  { id: 'snapshots', label: 'Snapshots' },
  { id: 'settings', label: 'Settings' },
];

/** The icon of each action's button; everything else about an action comes from VM_ACTIONS. */
const ACTION_ICONS: Record<VmActionName, LucideIcon> = {
  start: Play,
  stop: Square,
  forceStop: Power,
  reset: RotateCcw,
  upgrade: TrendingUp,
  rebuild: HardDriveDownload,
  rename: Type,
  delete: Trash2,
};

function ActionButton({
  action,
  status,
  permissions,
  className = '',
  onClick,
}: {
  action: VmActionName;
  status: VmStatus;
  permissions: readonly Permission[];
  className?: string;
  onClick: () => void;
}) {
  const reason = vmActionRefusal(action, status, permissions);
  const Icon = ACTION_ICONS[action];
  return (
    // The reason sits on a wrapper: a disabled button shows no tooltip of its own.
    <span title={reason ?? undefined} className={className} data-action={action}>
      <Button
        variant={action === 'delete' ? 'danger' : 'secondary'}
        className="w-full"
        disabled={reason !== null}
        aria-description={reason ?? undefined}
        onClick={onClick}
      >
        <Icon className="h-4 w-4" /> {VM_ACTIONS[action].label}
      </Button>
    </span>
  );
}

function Card({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section
      aria-label={title}
      className="rounded-lg border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 shadow-sm"
    >
      <h2 className="border-b border-slate-200 dark:border-slate-700 px-4 py-3 font-semibold text-slate-900 dark:text-slate-100">
        {title}
      </h2>
      <div className="p-4">{children}</div>
    </section>
  );
}

/**
 * One of the page's sections: what the section bar scrolls to and focuses (its cards are the landmarks, so it adds
 * no region of its own).
 */
function PageSectionBlock({ id, label, children }: { id: string; label: string; children: ReactNode }) {
  return (
    <div id={id} data-section={label} tabIndex={-1} className="min-w-0 scroll-mt-4 space-y-6 outline-none">
      {children}
    </div>
  );
}

function SectionLoading() {
  return <p className="text-sm text-slate-500 dark:text-slate-400">Loading snapshots...</p>;
}

/**
 * True once the browser is first idle after the page showed (at most `timeoutMs` later): the Snapshots card (its
 * form brings react-hook-form and the contract's schemas) is mounted then, so its chunk does not compete with the
 * details, the overview and the graphs for the first second.
 */
function useIdleAfterShow(shown: boolean, timeoutMs = 1_000): boolean {
  const [idle, setIdle] = useState(false);
  useEffect(() => {
    if (!shown) return;
    if (typeof window.requestIdleCallback === 'function') {
      const handle = window.requestIdleCallback(() => setIdle(true), { timeout: timeoutMs });
      return () => window.cancelIdleCallback(handle);
    }
    const timer = setTimeout(() => setIdle(true), 200);
    return () => clearTimeout(timer);
  }, [shown, timeoutMs]);
  return idle;
}

function Item({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div>
      <dt className="text-xs font-medium uppercase tracking-wide text-slate-500 dark:text-slate-400">{label}</dt>
      <dd className="mt-1 flex items-center gap-1 text-sm text-slate-900 dark:text-slate-100" data-label={label}>
        {children}
      </dd>
    </div>
  );
}

function Bar({ label, percent, text }: { label: string; percent: number; text: string }) {
  return (
    <div className="space-y-1">
      <div className="flex justify-between text-sm">
        <span className="font-medium text-slate-700 dark:text-slate-300">{label}</span>
        <span className="text-slate-600 dark:text-slate-300" data-usage={label}>
          {text}
        </span>
      </div>
      <div className="h-2 rounded-full bg-slate-100 dark:bg-slate-800">
        <div
          className="h-2 rounded-full bg-brand-600 transition-all"
          style={{ width: `${Math.min(100, Math.max(0, percent))}%` }}
        />
      </div>
    </div>
  );
}

export function VmDetailsPage() {
  // SPEC: no id and a finished delete go back; opened by its address, back is the VM list, never out of the portal.
  const back = useBack('/virtualMachines');
  const { virtualMachineId } = useParams();
  const id = Number(virtualMachineId);
  const valid = Number.isInteger(id) && id > 0;
  const details = useVmDetails(valid ? id : 0);
  const del = useDeleteVm();
  const [dialog, setDialog] = useState<VmActionName | null>(null);
  // The delete confirmation mounts once first asked for and stays, so it closes (and gives focus back) as before.
  const [deleteAsked, setDeleteAsked] = useState(false);
  if (dialog === 'delete' && !deleteAsked) setDeleteAsked(true);
  // Issue 24 item 4: the delete keeps the VM's backups when ticked (default off).
  const [keepBackups, setKeepBackups] = useState(false);
  const [password, setPassword] = useState<string | null>(null);

  useEffect(() => {
    if (!valid) back();
  }, [valid, back]);

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
  function confirmDelete() {
    del.mutate(
      { params: { id }, ...(keepBackups && { query: { keepBackups: 'true' as const } }) },
      {
        onSuccess: () => {
          toast.success(VM_ACTIONS.delete.accepted);
          back();
        },
      },
    );
  }
  function closeDialog() {
    del.reset();
    setKeepBackups(false);
    setDialog(null);
  }

  const permissions = data?.permissions ?? [];
  const canOperate = permissions.includes('vm.operate');
  const consoleReason = !canOperate
    ? TEXT.roleLacks
    : status === 'Running' && !!data?.consoleAvailable
      ? null
      : TEXT.consoleUnavailable;
  const usage = data?.usage;
  const snapshotsReady = useIdleAfterShow(!!vm);

  return (
    <PageLayout
      title={vm?.name ?? (details.error ? failureTitle(details.error) : 'Loading...')}
      secondaryTitle="Virtual machine"
      onBack={back}
    >
      {details.error ? (
        // Not found (deleted or never existed), unreachable or another error: said in the layout, with a way back.
        <LoadFailure
          error={details.error}
          notFound={TEXT.vmNotFound}
          prefix={ERRORS.fetchVmDetails}
          back={{ to: '/virtualMachines', label: 'Back to Virtual Machines' }}
          onRetry={() => void details.refetch()}
        />
      ) : !vm || !status ? (
        <p className="text-sm text-slate-500 dark:text-slate-400">Loading...</p>
      ) : (
        <div className="space-y-6">
          <SectionNav sections={SECTIONS} />
          <PageSectionBlock id="overview" label="Overview">
            <div className="grid gap-6 xl:grid-cols-3">
              <div className="space-y-6 xl:col-span-2">
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
                      <StatusBadge status={status} bootStartedAt={data.bootStartedAt} />
                      <button
                        type="button"
                        aria-label="Refresh status"
                        onClick={() => void refresh()}
                        className="rounded p-1 text-slate-400 hover:bg-slate-100 dark:hover:bg-slate-800 hover:text-slate-700 dark:hover:text-slate-100"
                      >
                        <RefreshCw className="h-4 w-4" />
                      </button>
                    </Item>
                    <Item label="Disk">{`${vm.disk} GB`}</Item>
                    <Item label="Password">
                      <span className="font-mono" data-testid="vm-password">
                        {password === null ? '••••••••••' : password || TEXT.none}
                      </span>
                      {/* Reading the password needs vm.operate: a role without it is not offered the buttons. */}
                      {canOperate && (
                        <>
                          <button
                            type="button"
                            aria-label={password === null ? 'Show password' : 'Hide password'}
                            onClick={() => (password === null ? void showPassword() : setPassword(null))}
                            className="rounded p-1 text-slate-400 hover:bg-slate-100 dark:hover:bg-slate-800 hover:text-slate-700 dark:hover:text-slate-100"
                          >
                            {password === null ? <Eye className="h-4 w-4" /> : <EyeOff className="h-4 w-4" />}
                          </button>
                          <CopyButton
                            label="Password"
                            value={async () => password ?? (await fetchPassword(id)).sshPassword}
                          />
                        </>
                      )}
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
                    <p
                      role="alert"
                      className="mt-4 rounded-md bg-red-50 dark:bg-red-950/50 px-3 py-2 text-sm text-red-700 dark:text-red-300"
                    >
                      {data.errorReason}
                    </p>
                  )}
                </Card>
              </div>
              <div className="space-y-6">
                <Card title="Resource Usage">
                  <div className="space-y-4">
                    <Bar
                      label="CPU"
                      percent={usage?.cpuUsage ?? 0}
                      text={usage?.cpuUsage ? `${usage.cpuUsage.toFixed(1)}% of ${vm.cpu} cores` : '-'}
                    />
                    <Bar
                      label="Memory"
                      percent={usage?.ramUsage ? (usage.ramUsage / vm.ram) * 100 : 0}
                      text={usage?.ramUsage ? `${usage.ramUsage.toFixed(1)} / ${vm.ram} GB` : '-'}
                    />
                  </div>
                </Card>
                <VmMonthCard vmId={id} />
                <Card title="Actions">
                  <div className="grid grid-cols-2 gap-2" onPointerEnter={preloadDialogs} onFocus={preloadDialogs}>
                    {/* Console and Download Private Key take a row each: in half a row the longer one wrapped to two
                        lines and the grid's rows went uneven (issue 25 defect 9). */}
                    <span title={consoleReason ?? undefined} className="col-span-2">
                      <Button
                        variant="secondary"
                        className="w-full"
                        disabled={consoleReason !== null}
                        aria-description={consoleReason ?? undefined}
                        onClick={() =>
                          window.open(`${document.baseURI.replace(/\/$/, '')}/virtualMachineConsole/${id}`, '_blank')
                        }
                      >
                        <Monitor className="h-4 w-4" /> Console
                      </Button>
                    </span>
                    <span title={canOperate ? undefined : TEXT.roleLacks} className="col-span-2">
                      <Button
                        variant="secondary"
                        className="w-full whitespace-nowrap"
                        disabled={!canOperate}
                        aria-description={canOperate ? undefined : TEXT.roleLacks}
                        onClick={() => void downloadKey()}
                      >
                        <Download className="h-4 w-4" /> Download Private Key
                      </Button>
                    </span>
                    {shownVmActions(status).map((action, index, all) => (
                      <ActionButton
                        key={action}
                        action={action}
                        status={status}
                        permissions={permissions}
                        // The last button fills the row when it would stand alone.
                        className={index === all.length - 1 && all.length % 2 === 1 ? 'col-span-2' : ''}
                        onClick={() => setDialog(action)}
                      />
                    ))}
                  </div>
                </Card>
              </div>
            </div>
          </PageSectionBlock>
          <PageSectionBlock id="graphs" label="Graphs">
            <VmGraphsSection vmId={id} />
          </PageSectionBlock>
          <PageSectionBlock id="snapshots" label="Snapshots">
            {snapshotsReady ? (
              <Suspense fallback={<SectionLoading />}>
                <SnapshotsCard vmId={id} status={status} permissions={permissions} />
                <BackupsCard vmId={id} status={status} permissions={permissions} />
                <BackupScheduleCard vmId={id} permissions={permissions} />
              </Suspense>
            ) : (
              <SectionLoading />
            )}
          </PageSectionBlock>
          <PageSectionBlock id="settings" label="Settings">
            <Card title="SSH Access">
              <dl className="grid gap-4 sm:grid-cols-2">
                <Item label={SSH_KEY_TEXT.sshUser}>
                  <span className="font-mono" data-testid="vm-ssh-user">
                    {data.access.sshUsername}
                  </span>
                  <CopyButton label={SSH_KEY_TEXT.sshUser} value={data.access.sshUsername} />
                </Item>
                <Item label={SSH_KEY_TEXT.userDataShown}>
                  {data.access.userData
                    ? SSH_KEY_TEXT.userDataGiven(data.access.userData.bytes, data.access.userData.kind)
                    : TEXT.none}
                </Item>
              </dl>
              <h3 className="mt-4 text-xs font-medium uppercase tracking-wide text-slate-500 dark:text-slate-400">
                {SSH_KEY_TEXT.installedKeys}
              </h3>
              <ul
                className="mt-1 divide-y divide-slate-100 dark:divide-slate-800"
                aria-label={SSH_KEY_TEXT.installedKeys}
              >
                {data.access.keys.map((k) => (
                  <li key={`${k.portal}-${k.fingerprint}`} className="py-2 text-sm" data-installed-key={k.name}>
                    <span className="font-medium text-slate-900 dark:text-slate-100">{k.name}</span>
                    <code className="block break-all font-mono text-xs text-slate-500 dark:text-slate-400">
                      {k.fingerprint}
                    </code>
                  </li>
                ))}
              </ul>
            </Card>
          </PageSectionBlock>
        </div>
      )}
      <Suspense fallback={null}>
        {dialog && isConfirmedAction(dialog) && (
          <ConfirmActionDialog
            action={dialog}
            vmId={id}
            onClose={() => setDialog(null)}
            onDone={() => details.refetch()}
          />
        )}
        {dialog === 'rebuild' && vm && <RebuildDialog vm={vm} onClose={() => setDialog(null)} />}
        {dialog === 'rename' && vm && <RenameDialog vmId={id} currentName={vm.name} onClose={() => setDialog(null)} />}
        {dialog === 'upgrade' && vm && (
          <UpgradeDialog
            vmId={id}
            currentCpu={vm.cpu}
            currentConfigurationId={vm.configurationId}
            running={status === 'Running'}
            onClose={() => setDialog(null)}
          />
        )}
      </Suspense>
      {deleteAsked && (
        <Suspense fallback={null}>
          <DeleteConfirmationModal
            target={dialog === 'delete' && vm ? vm : null}
            item="virtual machine"
            pending={del.isPending}
            error={del.error}
            onConfirm={confirmDelete}
            onCancel={closeDialog}
          >
            {dialog === 'delete' && <KeepBackupsChoice vmId={id} checked={keepBackups} onChange={setKeepBackups} />}
          </DeleteConfirmationModal>
        </Suspense>
      )}
    </PageLayout>
  );
}
