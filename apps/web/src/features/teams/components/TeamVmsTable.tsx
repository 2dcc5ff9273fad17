/** The team's VMs, from the VM list call with `teamId`. */
import { keepPreviousData } from '@tanstack/react-query';
import Server from 'lucide-react/icons/server';
import { useNavigate } from 'react-router';
import { PAGE_SIZE } from '@portal/contract/constants';
import { ERRORS, TEXT } from '@portal/contract/messages';
import { routes } from '@portal/contract/routes';
import { DataTable } from '../../../components/ui/DataTable.tsx';
import { errorText } from '../../../components/ui/ErrorText.tsx';
import { useRouteQuery } from '../../../lib/route-query.ts';
import { useTableState } from '../../../lib/use-table-state.ts';

export function TeamVmsTable({ teamId }: { teamId: number }) {
  const navigate = useNavigate();
  const table = useTableState(undefined, 'vms');
  const vms = useRouteQuery(
    routes.vms.list,
    { query: { teamId, page: table.query.page, rowsPerPage: PAGE_SIZE.virtualMachines, search: table.query.search } },
    { placeholderData: keepPreviousData },
  );
  return (
    <DataTable
      title="Team Virtual Machines"
      icon={<Server className="h-5 w-5" />}
      columns={[
        {
          key: 'name',
          header: 'Name',
          render: (v) => <span className="font-medium text-slate-900 dark:text-slate-100">{v.name}</span>,
        },
        { key: 'status', header: 'Status', render: (v) => v.status },
        { key: 'size', header: 'Size', render: (v) => v.configuration },
      ]}
      rows={vms.data?.data}
      rowKey={(v) => v.id}
      onRowClick={(v) => navigate(`/virtualMachineDetails/${v.id}`)}
      loading={vms.isPending}
      error={errorText(vms.error, ERRORS.fetchVms)}
      noDataMessage={TEXT.noVms}
      search={{ value: table.search, onChange: table.setSearch }}
      onRefresh={() => vms.refetch()}
      page={table.page}
      totalPages={vms.data?.totalPages ?? 0}
      onPageChange={table.setPage}
    />
  );
}
