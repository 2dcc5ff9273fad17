/**
 * /virtualMachines — the VM list (SPEC point 2; issue 25 item 2): search, paging, sort by name (natural: batch-2
 * before batch-10, on the server) or size, Details; addresses, region, image and team (hidden on phones); filters
 * by status, region and team in the address; a row menu with the VM page's actions; bulk Start, Stop and Delete of
 * chosen VMs or of all matching the filters, ending in a summary of what was done and what was refused and why.
 */
import Server from 'lucide-react/icons/server';
import { lazy, Suspense, useState } from 'react';
import { useNavigate } from 'react-router';
import { PAGE_SIZE } from '@portal/contract/constants';
import { ERRORS, TEXT, withDetail } from '@portal/contract/messages';
import { VM_SORT_COLUMNS } from '@portal/contract/virtual-machines';
import { VM_ACTIONS, type VmActionName } from '@portal/contract/vm-actions';
import { toast } from 'react-toastify';
import { Button } from '../../../components/ui/Button.tsx';
import { DataTable } from '../../../components/ui/DataTable.tsx';
import { DeleteConfirmationModal } from '../../../components/ui/DeleteConfirmationModal.tsx';
import { PageLayout } from '../../../components/ui/PageLayout.tsx';
import { errorMessage } from '../../../lib/api.ts';
import { formatDate } from '../../../lib/dates.ts';
import { useTableState } from '../../../lib/use-table-state.ts';
import { isConfirmedAction, useDeleteVm, useVmList } from '../api/vms.ts';
import { StatusBadge } from '../components/StatusBadge.tsx';
import { VmBulkBar, type VmSelection } from '../components/VmBulkActions.tsx';
import { VmListFilters, useVmListFilters } from '../components/VmListFilters.tsx';
import { VmRowMenu } from '../components/VmRowMenu.tsx';
import { KeepBackupsChoice } from '../components/KeepBackupsChoice.tsx';

/**
 * The row menu's dialogs, asked for when a row's actions are pointed at or focused, and when a dialog opens (as on
 * the VM page): with their forms' schemas, react-hook-form and the create form's key picker they are ~50 KB gzip
 * that the list's first paint does not need (docs/performance.md).
 */
const loadDialogs = () => import('../components/VmActionDialogs.tsx');
const preloadDialogs = () => void loadDialogs().catch(() => {});
const ConfirmActionDialog = lazy(() => loadDialogs().then((m) => ({ default: m.ConfirmActionDialog })));
const RebuildDialog = lazy(() => loadDialogs().then((m) => ({ default: m.RebuildDialog })));
const RenameDialog = lazy(() => loadDialogs().then((m) => ({ default: m.RenameDialog })));
const UpgradeDialog = lazy(() => loadDialogs().then((m) => ({ default: m.UpgradeDialog })));

/** A row as the portal holds it (timestamps revived as dates). */
type Row = NonNullable<ReturnType<typeof useVmList>['data']>['data'][number];

const checkboxClass = 'h-4 w-4 rounded border-slate-400 accent-brand-600 dark:border-slate-500';

export function VirtualMachinesPage() {
  const navigate = useNavigate();
  const table = useTableState();
  const filters = useVmListFilters();
  // A sort column from the address is used only if the API knows it.
  const sort = table.sort && (VM_SORT_COLUMNS as readonly string[]).includes(table.sort.column) ? table.sort : null;
  const list = useVmList({
    ...table.query,
    rowsPerPage: PAGE_SIZE.virtualMachines,
    ...(sort ? { sortColumn: sort.column as 'name' | 'configuration', sortDescending: sort.descending } : {}),
    status: filters.status,
    regionId: filters.regionId,
    teamId: filters.teamId,
  });
  const rows = list.data?.data;
  const totalPages = list.data?.totalPages ?? 0;

  // The selection belongs to the filters it was made under: another search or filter starts a new one.
  const filterKey = JSON.stringify([table.query.search, filters.status, filters.regionId, filters.teamId]);
  const [chosen, setChosen] = useState<{ key: string; selection: VmSelection }>({
    key: filterKey,
    selection: { kind: 'ids', ids: [] },
  });
  const selection: VmSelection = chosen.key === filterKey ? chosen.selection : { kind: 'ids', ids: [] };
  const selectedIds = new Set(selection.kind === 'ids' ? selection.ids : (rows ?? []).map((v) => v.id));
  const choose = (next: VmSelection) => setChosen({ key: filterKey, selection: next });
  const pageIds = (rows ?? []).map((v) => v.id);
  const wholePage = pageIds.length > 0 && pageIds.every((id) => selectedIds.has(id));
  // Names for the confirmation, when every chosen VM is on this page (chosen across pages: the count says it).
  const onPage = new Map((rows ?? []).map((v) => [v.id, v.name]));
  const chosenNames =
    selection.kind === 'ids' && selection.ids.every((id) => onPage.has(id))
      ? selection.ids.map((id) => onPage.get(id)!)
      : null;
  function toggle(id: number) {
    const ids = new Set(selection.kind === 'ids' ? selection.ids : pageIds);
    if (ids.has(id)) ids.delete(id);
    else ids.add(id);
    choose({ kind: 'ids', ids: [...ids] });
  }
  function togglePage() {
    const ids = new Set(selection.kind === 'ids' ? selection.ids : []);
    for (const id of pageIds) {
      if (wholePage) ids.delete(id);
      else ids.add(id);
    }
    choose({ kind: 'ids', ids: [...ids] });
  }

  // The row menu's dialog: the VM page's dialogs, for the VM of that row.
  const [dialog, setDialog] = useState<{ action: VmActionName; vm: Row } | null>(null);
  const del = useDeleteVm();
  // Issue 24 item 4: the row's delete keeps the VM's backups when ticked (default off).
  const [keepBackups, setKeepBackups] = useState(false);
  function closeDelete() {
    del.reset();
    setKeepBackups(false);
    setDialog(null);
  }
  function confirmDelete(vm: Row) {
    del.mutate(
      { params: { id: vm.id }, ...(keepBackups && { query: { keepBackups: 'true' as const } }) },
      {
        onSuccess: () => {
          toast.success(VM_ACTIONS.delete.accepted);
          setKeepBackups(false);
          setDialog(null);
        },
      },
    );
  }

  return (
    <PageLayout
      title="Virtual Machines"
      action={{ name: 'Create Virtual Machine', onClick: () => navigate('/createVirtualMachine') }}
    >
      <DataTable
        title="Virtual Machines"
        message="Your machines, live"
        icon={<Server className="h-5 w-5" />}
        toolbar={
          <>
            <VmListFilters filters={filters} />
            <VmBulkBar
              selection={selection}
              filters={{
                search: table.query.search,
                status: filters.status,
                regionId: filters.regionId,
                teamId: filters.teamId,
              }}
              onClear={() => choose({ kind: 'ids', ids: [] })}
              onSelectAllMatching={() => choose({ kind: 'matching' })}
              canSelectAllMatching={wholePage && totalPages > 1}
              chosenNames={chosenNames}
            />
          </>
        }
        columns={[
          {
            key: 'select',
            header: (
              <input
                type="checkbox"
                className={checkboxClass}
                aria-label="Select all on this page"
                checked={wholePage}
                onChange={togglePage}
              />
            ),
            render: (v) => (
              <input
                type="checkbox"
                className={checkboxClass}
                aria-label={`Select ${v.name}`}
                checked={selectedIds.has(v.id)}
                onClick={(e) => e.stopPropagation()}
                onKeyDown={(e) => e.stopPropagation()}
                onChange={() => toggle(v.id)}
              />
            ),
          },
          {
            key: 'name',
            header: 'Name',
            sortable: true,
            render: (v) => <span className="font-medium text-slate-900 dark:text-slate-100">{v.name}</span>,
          },
          {
            key: 'status',
            header: 'Status',
            render: (v) => <StatusBadge status={v.status} bootStartedAt={v.bootStartedAt} />,
          },
          { key: 'configuration', header: 'Size', sortable: true, render: (v) => v.configuration },
          { key: 'cpu', header: 'CPU', align: 'center', render: (v) => v.cpu },
          { key: 'ram', header: 'RAM', align: 'center', render: (v) => `${v.ram} GB` },
          {
            key: 'address',
            header: 'Address',
            hideOnSmall: true,
            render: (v) => (
              <span className="block whitespace-nowrap font-mono text-xs leading-5">
                <span className="block" title="Public IP">
                  {v.publicIp ?? '—'}
                </span>
                <span className="block text-slate-500 dark:text-slate-400" title="Private IP">
                  {v.privateIp ?? '—'}
                </span>
              </span>
            ),
          },
          { key: 'region', header: 'Region', hideOnSmall: true, render: (v) => v.region },
          { key: 'image', header: 'Image', hideOnSmall: true, render: (v) => v.image },
          {
            key: 'team',
            header: 'Team',
            hideOnSmall: true,
            render: (v) => v.team ?? <span className="text-slate-500 dark:text-slate-400">—</span>,
          },
          { key: 'created', header: 'Created', hideOnSmall: true, render: (v) => formatDate(v.createdAt) },
          {
            key: 'details',
            header: <span className="sr-only">Details</span>,
            align: 'right',
            render: (v) => (
              <span className="inline-flex items-center gap-1" onPointerEnter={preloadDialogs} onFocus={preloadDialogs}>
                <Button
                  variant="secondary"
                  className="px-3 py-1"
                  aria-label={`Details of ${v.name}`}
                  onClick={(e) => {
                    e.stopPropagation();
                    navigate(`/virtualMachineDetails/${v.id}`);
                  }}
                >
                  Details
                </Button>
                <VmRowMenu
                  name={v.name}
                  status={v.status}
                  permissions={v.permissions}
                  onAction={(action) => setDialog({ action, vm: v })}
                />
              </span>
            ),
          },
        ]}
        rows={rows}
        rowKey={(v) => v.id}
        rowLabel={(v) => v.name}
        // The whole row opens the details (mouse, Enter or Space); the Details button stays for clarity.
        onRowClick={(v) => navigate(`/virtualMachineDetails/${v.id}`)}
        loading={list.isPending}
        error={list.error ? withDetail(ERRORS.fetchVms, errorMessage(list.error)) : null}
        noDataMessage={TEXT.noVms}
        search={{ value: table.search, onChange: table.setSearch }}
        onRefresh={() => list.refetch()}
        page={table.page}
        totalPages={totalPages}
        onPageChange={table.setPage}
        sort={sort}
        onSortChange={table.setSort}
      />
      <Suspense fallback={null}>
        {dialog && isConfirmedAction(dialog.action) && (
          <ConfirmActionDialog
            action={dialog.action}
            vmId={dialog.vm.id}
            onClose={() => setDialog(null)}
            onDone={() => list.refetch()}
          />
        )}
        {dialog?.action === 'rebuild' && <RebuildDialog vm={dialog.vm} onClose={() => setDialog(null)} />}
        {dialog?.action === 'rename' && (
          <RenameDialog vmId={dialog.vm.id} currentName={dialog.vm.name} onClose={() => setDialog(null)} />
        )}
        {dialog?.action === 'upgrade' && (
          <UpgradeDialog
            vmId={dialog.vm.id}
            currentCpu={dialog.vm.cpu}
            currentConfigurationId={dialog.vm.configurationId}
            running={dialog.vm.status === 'Running'}
            onClose={() => setDialog(null)}
          />
        )}
      </Suspense>
      <DeleteConfirmationModal
        target={dialog?.action === 'delete' ? dialog.vm : null}
        item="virtual machine"
        pending={del.isPending}
        error={del.error}
        onConfirm={() => dialog && confirmDelete(dialog.vm)}
        onCancel={closeDelete}
      >
        {dialog?.action === 'delete' && (
          <KeepBackupsChoice vmId={dialog.vm.id} checked={keepBackups} onChange={setKeepBackups} />
        )}
      </DeleteConfirmationModal>
    </PageLayout>
  );
}
