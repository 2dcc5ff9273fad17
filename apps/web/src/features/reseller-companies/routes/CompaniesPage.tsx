/**
 * /reseller/companies — the reseller's customer companies: search, paging, users, live VMs and this month's
 * VM-hours; a row opens the read-only company view. Owner staff create, suspend and resume; support only looks.
 */
import Building2 from 'lucide-react/icons/building-2';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { PAGE_SIZE } from '@portal/contract/constants';
import { staffMayWrite } from '@portal/contract/permissions';
import { COMPANIES_TEXT } from '@portal/contract/reseller-companies';
import { Button } from '../../../components/ui/Button.tsx';
import { DataTable } from '../../../components/ui/DataTable.tsx';
import { errorText } from '../../../components/ui/ErrorText.tsx';
import { PageLayout } from '../../../components/ui/PageLayout.tsx';
import { useAuth } from '../../../lib/auth-context.tsx';
import { useTableState } from '../../../lib/use-table-state.ts';
import { useCompanies } from '../api/companies.ts';
import { CompanyStatusBadge } from '../components/CompanyStatusBadge.tsx';
import { CreateCompanyDialog } from '../components/CreateCompanyDialog.tsx';
import { SuspensionDialog, type SuspensionTarget } from '../components/SuspensionDialog.tsx';

const hours = new Intl.NumberFormat(undefined, { maximumFractionDigits: 1 });

export function CompaniesPage() {
  const navigate = useNavigate();
  const { user } = useAuth();
  const canWrite = staffMayWrite(user?.staffRole);
  const table = useTableState();
  const list = useCompanies({ ...table.query, rowsPerPage: PAGE_SIZE.users });
  const [creating, setCreating] = useState(false);
  const [target, setTarget] = useState<SuspensionTarget | null>(null);

  return (
    <PageLayout
      title={COMPANIES_TEXT.title}
      {...(canWrite ? { action: { name: COMPANIES_TEXT.createButton, onClick: () => setCreating(true) } } : {})}
    >
      <DataTable
        title={COMPANIES_TEXT.title}
        message={COMPANIES_TEXT.tableMessage}
        icon={<Building2 className="h-5 w-5" />}
        columns={[
          {
            key: 'name',
            header: 'Company',
            render: (c) => <span className="font-medium text-slate-900 dark:text-slate-100">{c.name}</span>,
          },
          {
            key: 'status',
            header: 'Status',
            render: (c) => <CompanyStatusBadge status={c.status} reason={c.suspendedReason} />,
          },
          { key: 'users', header: 'Users', align: 'center', render: (c) => c.userCount },
          { key: 'vms', header: 'Virtual Machines', align: 'center', render: (c) => c.vmCount },
          {
            key: 'hours',
            header: 'VM-hours this month',
            align: 'right',
            hideOnSmall: true,
            render: (c) => hours.format(c.vmHoursThisMonth),
          },
          {
            key: 'actions',
            header: <span className="sr-only">Actions</span>,
            align: 'right',
            render: (c) =>
              canWrite ? (
                <Button
                  variant={c.status === 'active' ? 'secondary' : 'primary'}
                  className="px-3 py-1"
                  aria-label={`${c.status === 'active' ? COMPANIES_TEXT.suspend : COMPANIES_TEXT.resume} ${c.name}`}
                  onClick={(e) => {
                    e.stopPropagation();
                    setTarget({ id: c.id, name: c.name, status: c.status });
                  }}
                >
                  {c.status === 'active' ? COMPANIES_TEXT.suspend : COMPANIES_TEXT.resume}
                </Button>
              ) : null,
          },
        ]}
        rows={list.error ? [] : list.data?.data}
        rowKey={(c) => c.id}
        rowLabel={(c) => c.name}
        onRowClick={(c) => navigate(`/reseller/company?id=${c.id}`)}
        loading={list.isPending}
        error={errorText(list.error, 'Error fetching companies')}
        noDataMessage={COMPANIES_TEXT.empty}
        search={{ value: table.search, onChange: table.setSearch, placeholder: COMPANIES_TEXT.searchPlaceholder }}
        onRefresh={() => list.refetch()}
        page={table.page}
        totalPages={list.data?.totalPages ?? 0}
        onPageChange={table.setPage}
      />
      <CreateCompanyDialog open={creating} onClose={() => setCreating(false)} />
      <SuspensionDialog target={target} onClose={() => setTarget(null)} />
    </PageLayout>
  );
}
