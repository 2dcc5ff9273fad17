/** /reseller/hosts: the hosts of the reseller's providers: capacity, allocation, health; drain, disable, edit. */
import { useState } from 'react';
import { toast } from 'react-toastify';
import { Button } from '../../../components/ui/Button.tsx';
import { ConfirmDialog } from '../../../components/ui/ConfirmDialog.tsx';
import { ErrorText } from '../../../components/ui/ErrorText.tsx';
import { PageLayout } from '../../../components/ui/PageLayout.tsx';
import { Spinner } from '../../../components/ui/Spinner.tsx';
import { useDeleteHost, useMayEdit, useResellerHosts, useUpdateHost, type HostView } from '../api/catalog.ts';
import { HostHealthBadge } from '../components/HostHealthBadge.tsx';
import { EditCapacityDialog, RegisterHostDialog } from '../components/HostDialogs.tsx';
import { ScrollRegion } from '../../../components/ui/ScrollRegion.tsx';

type Toggle = { host: HostView; field: 'draining' | 'enabled'; value: boolean };

const TOGGLE_TEXT = {
  'draining:true': [
    'Drain',
    'It takes no new VMs, and its VMs move to other hosts of its region, one at a time, keeping their addresses.',
  ],
  'draining:false': ['Stop draining', 'It takes new VMs again; VMs already moved stay where they are.'],
  'enabled:false': ['Disable', 'It takes no new VMs until it is enabled again.'],
  'enabled:true': ['Enable', 'It takes new VMs again.'],
} as const;

const th = 'px-4 py-2.5 font-medium text-left';
const pct = (used: number, total: number) => (total > 0 ? Math.round((used / total) * 100) : 0);

export function HostsPage() {
  const hosts = useResellerHosts();
  const update = useUpdateHost();
  const mayEdit = useMayEdit();
  const [toggle, setToggle] = useState<Toggle | null>(null);
  const [editing, setEditing] = useState<HostView | null>(null);
  const [registering, setRegistering] = useState(false);
  const remove = useDeleteHost();
  const [removing, setRemoving] = useState<HostView | null>(null);
  const closeRemove = () => {
    remove.reset();
    setRemoving(null);
  };

  const closeToggle = () => {
    update.reset();
    setToggle(null);
  };
  const toggleText = toggle ? TOGGLE_TEXT[`${toggle.field}:${toggle.value}`] : null;

  return (
    <PageLayout
      title="Hosts"
      secondaryTitle="The libvirt hosts of your providers"
      {...(mayEdit && hosts.data && hosts.data.providers.length > 0
        ? { action: { name: 'Register host', onClick: () => setRegistering(true) } }
        : {})}
    >
      {hosts.isPending ? (
        <Spinner />
      ) : hosts.error ? (
        <ErrorText error={hosts.error} />
      ) : (
        <ScrollRegion
          label="Hosts"
          className="rounded-lg border border-slate-200 bg-white dark:border-slate-700 dark:bg-slate-900"
        >
          <table className="min-w-full divide-y divide-slate-200 text-sm dark:divide-slate-700">
            <thead className="bg-slate-50 text-slate-600 dark:bg-slate-800/50 dark:text-slate-300">
              <tr>
                <th className={th}>Name</th>
                <th className={th}>Region</th>
                <th className={th}>Capacity</th>
                <th className={th}>Used</th>
                <th className={th}>Health</th>
                <th className={th}>New VMs</th>
                <th className={th}>
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100 dark:divide-slate-800">
              {hosts.data.hosts.length === 0 && (
                <tr>
                  <td colSpan={7} className="px-4 py-8 text-center text-slate-500 dark:text-slate-400">
                    No hosts found
                  </td>
                </tr>
              )}
              {hosts.data.hosts.map((h) => (
                <tr key={h.id} data-host={h.name} className="align-top">
                  <td className="px-4 py-2.5">
                    <div className="font-medium text-slate-900 dark:text-slate-100">{h.name}</div>
                    <div className="text-xs text-slate-500 dark:text-slate-400">{h.provider}</div>
                  </td>
                  <td className="whitespace-nowrap px-4 py-2.5">{h.region}</td>
                  <td className="whitespace-nowrap px-4 py-2.5 tabular-nums">
                    <div>{`${h.cpus} CPUs × ${h.cpuOvercommit}`}</div>
                    <div>{`${h.ramGb} GB RAM × ${h.ramOvercommit}`}</div>
                    <div>{`${h.diskGb} GB disk × ${h.diskOvercommit}`}</div>
                    <div className="text-xs text-slate-500 dark:text-slate-400">
                      {`Backups at once: ${h.backupConcurrency ?? 'default'}`}
                    </div>
                  </td>
                  <td className="whitespace-nowrap px-4 py-2.5 tabular-nums">
                    <div>{`${h.used.vms} VM${h.used.vms === 1 ? '' : 's'}`}</div>
                    <div>{`${h.used.cpu} vCPUs (${pct(h.used.cpu, h.cpus * h.cpuOvercommit)}%)`}</div>
                    <div>{`${h.used.ram} GB RAM (${pct(h.used.ram, h.ramGb * h.ramOvercommit)}%)`}</div>
                  </td>
                  <td className="px-4 py-2.5">
                    <HostHealthBadge host={h} />
                  </td>
                  <td className="px-4 py-2.5">
                    <div>{!h.enabled ? 'Disabled' : h.draining ? 'Draining' : 'Taking new VMs'}</div>
                    {h.draining && (
                      <div className="text-xs text-slate-500 dark:text-slate-400">
                        {h.used.vms === 0 ? 'Drained' : `${h.used.vms} VM${h.used.vms === 1 ? '' : 's'} to move`}
                      </div>
                    )}
                  </td>
                  <td className="px-4 py-2.5">
                    {mayEdit && (
                      <div className="flex justify-end gap-2">
                        <Button variant="secondary" onClick={() => setEditing(h)}>
                          Edit
                        </Button>
                        <Button
                          variant="secondary"
                          onClick={() => setToggle({ host: h, field: 'draining', value: !h.draining })}
                        >
                          {h.draining ? 'Stop draining' : 'Drain'}
                        </Button>
                        <Button
                          variant={h.enabled ? 'ghost' : 'secondary'}
                          onClick={() => setToggle({ host: h, field: 'enabled', value: !h.enabled })}
                        >
                          {h.enabled ? 'Disable' : 'Enable'}
                        </Button>
                        <Button variant="ghost" onClick={() => setRemoving(h)}>
                          Remove
                        </Button>
                      </div>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
      )}

      <ConfirmDialog
        open={toggle !== null}
        title={toggle && toggleText ? `${toggleText[0]} ${toggle.host.name}?` : ''}
        confirmLabel={toggleText?.[0] ?? ''}
        pending={update.isPending}
        error={update.error}
        onCancel={closeToggle}
        onConfirm={() => {
          if (!toggle) return;
          update.mutate(
            { params: { id: toggle.host.id }, body: { [toggle.field]: toggle.value } },
            {
              onSuccess: () => {
                toast.success(`${toggle.host.name} saved`);
                closeToggle();
              },
            },
          );
        }}
      >
        <p className="text-sm text-slate-700 dark:text-slate-300">{toggleText?.[1]}</p>
      </ConfirmDialog>
      <ConfirmDialog
        open={removing !== null}
        title={removing ? `Remove ${removing.name}?` : ''}
        confirmLabel="Remove"
        pending={remove.isPending}
        error={remove.error}
        onCancel={closeRemove}
        onConfirm={() => {
          if (!removing) return;
          remove.mutate(
            { params: { id: removing.id } },
            {
              onSuccess: () => {
                toast.success(`${removing.name} removed`);
                closeRemove();
              },
            },
          );
        }}
      >
        <p className="text-sm text-slate-700 dark:text-slate-300">
          The portal forgets the host; a host that still runs VMs is not removed.
        </p>
      </ConfirmDialog>
      {editing && <EditCapacityDialog host={editing} onClose={() => setEditing(null)} />}
      {registering && hosts.data && (
        <RegisterHostDialog
          providers={hosts.data.providers}
          regions={hosts.data.regions}
          publicKey={hosts.data.publicKey}
          onClose={() => setRegistering(false)}
        />
      )}
    </PageLayout>
  );
}
