/** /virtualMachines — the VM list: search, paging, sort by name or size, Details. */
import Server from 'lucide-react/icons/server';
import { useNavigate } from 'react-router';
import { PAGE_SIZE } from '@portal/contract/constants';
import { ERRORS, TEXT, withDetail } from '@portal/contract/messages';
import { Button } from '../../../components/ui/Button.tsx';
import { DataTable } from '../../../components/ui/DataTable.tsx';
import { VM_SORT_COLUMNS } from '@portal/contract/virtual-machines';
import { PageLayout } from '../../../components/ui/PageLayout.tsx';
import { errorMessage } from '../../../lib/api.ts';
import { formatDate } from '../../../lib/dates.ts';
import { useTableState } from '../../../lib/use-table-state.ts';
import { useVmList } from '../api/vms.ts';
import { StatusBadge } from '../components/StatusBadge.tsx';

export function VirtualMachinesPage() {
  const navigate = useNavigate();
  const table = useTableState();
  // A sort column from the address is used only if the API knows it.
  const sort = table.sort && (VM_SORT_COLUMNS as readonly string[]).includes(table.sort.column) ? table.sort : null;
  const list = useVmList({
    ...table.query,
    rowsPerPage: PAGE_SIZE.virtualMachines,
    ...(sort ? { sortColumn: sort.column as 'name' | 'configuration', sortDescending: sort.descending } : {}),
  });
  return (
    <PageLayout
      title="Virtual Machines"
      action={{ name: 'Create Virtual Machine', onClick: () => navigate('/createVirtualMachine') }}
    >
      <DataTable
        title="Virtual Machines"
        message="Your machines, live"
        icon={<Server className="h-5 w-5" />}
        columns={[
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
          { key: 'created', header: 'Created', hideOnSmall: true, render: (v) => formatDate(v.createdAt) },
          {
            key: 'details',
            header: <span className="sr-only">Details</span>,
            align: 'right',
            render: (v) => (
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
            ),
          },
        ]}
        rows={list.data?.data}
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
        totalPages={list.data?.totalPages ?? 0}
        onPageChange={table.setPage}
        sort={sort}
        onSortChange={table.setSort}
      />
    </PageLayout>
  );
}
