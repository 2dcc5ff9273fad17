/** /reseller/company?id=N — one company, read-only for support: its users, teams and virtual machines. */
import { useState, type ReactNode } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { staffMayWrite } from '@portal/contract/permissions';
import { COMPANIES_TEXT, type resellerCompaniesRoutes } from '@portal/contract/reseller-companies';
import type { ApiData } from '../../../lib/api.ts';
import { errorText } from '../../../components/ui/ErrorText.tsx';
import { PageLayout } from '../../../components/ui/PageLayout.tsx';
import { Spinner } from '../../../components/ui/Spinner.tsx';
import { useAuth } from '../../../lib/auth-context.tsx';
import { formatDate } from '../../../lib/dates.ts';
import { QUOTA_TEXT, resellerQuotaRoutes } from '@portal/contract/quotas';
import { QuotaPanel } from '../../../components/QuotaPanel.tsx';
import { useCompany, useCompanyWrite } from '../api/companies.ts';
import { CompanyStatusBadge } from '../components/CompanyStatusBadge.tsx';
import { SuspensionDialog, type SuspensionTarget } from '../components/SuspensionDialog.tsx';
import { ScrollRegion } from '../../../components/ui/ScrollRegion.tsx';

function Section({ title, count, children }: { title: string; count: number; children: ReactNode }) {
  return (
    <section className="rounded-lg border border-slate-200 bg-white shadow-sm dark:border-slate-700 dark:bg-slate-900">
      <h2 className="border-b border-slate-200 px-4 py-3 text-base font-semibold text-slate-900 dark:border-slate-700 dark:text-slate-100">
        {title} <span className="font-normal text-slate-500 dark:text-slate-400">({count})</span>
      </h2>
      <ScrollRegion label={title}>{children}</ScrollRegion>
    </section>
  );
}

function Table({ head, rows, empty }: { head: string[]; rows: ReactNode[][]; empty: string }) {
  return (
    <table className="min-w-full divide-y divide-slate-200 text-sm dark:divide-slate-700">
      <thead className="bg-slate-50 dark:bg-slate-800/50">
        <tr>
          {head.map((h) => (
            <th key={h} scope="col" className="px-4 py-2 text-left font-medium text-slate-600 dark:text-slate-300">
              {h}
            </th>
          ))}
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-100 dark:divide-slate-800">
        {rows.length === 0 ? (
          <tr>
            <td colSpan={head.length} className="px-4 py-4 text-center text-slate-500 dark:text-slate-400">
              {empty}
            </td>
          </tr>
        ) : (
          rows.map((cells, i) => (
            <tr key={i}>
              {cells.map((cell, j) => (
                <td key={j} className="px-4 py-2 text-slate-700 dark:text-slate-300">
                  {cell}
                </td>
              ))}
            </tr>
          ))
        )}
      </tbody>
    </table>
  );
}

type CompanyDetail = ApiData<typeof resellerCompaniesRoutes.detail>;

function Contents({ detail, canWrite }: { detail: CompanyDetail; canWrite: boolean }) {
  const { company } = detail;
  const setQuota = useCompanyWrite(resellerQuotaRoutes.setCompany);
  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-center gap-3 text-sm text-slate-600 dark:text-slate-300">
        <CompanyStatusBadge status={company.status} reason={company.suspendedReason} />
        {company.suspendedAt && (
          <span>
            Suspended {formatDate(company.suspendedAt)}
            {company.suspendedReason ? `: ${company.suspendedReason}` : ''}
          </span>
        )}
        <span>Created {formatDate(company.createdAt)}</span>
        <span>VM-hours this month: {company.vmHoursThisMonth}</span>
      </div>
      <p className="text-sm text-slate-500 dark:text-slate-400">{COMPANIES_TEXT.readOnlyNote}</p>
      <QuotaPanel
        quota={detail.quota}
        message={QUOTA_TEXT.companyMessage}
        canEdit={canWrite}
        onSave={(limits) => setQuota.mutateAsync({ params: { id: company.id }, body: limits })}
        saving={setQuota.isPending}
        error={setQuota.error}
        errorPrefix="Error saving limits"
      />
      <Section title="Users" count={detail.users.length}>
        <Table
          head={['Name', 'Email', 'Role', 'Status', 'Created']}
          empty="No users found"
          rows={detail.users.map((u) => [
            `${u.firstName} ${u.lastName}`.trim() || '—',
            u.email,
            u.isCompanyAdmin ? 'Company administrator' : 'Member',
            u.confirmed ? 'Active' : 'Invited',
            formatDate(u.createdAt),
          ])}
        />
      </Section>
      <Section title="Teams" count={detail.teams.length}>
        <Table
          head={['Team', 'Users', 'Virtual Machines']}
          empty="No teams found"
          rows={detail.teams.map((t) => [t.name, t.userCount, t.vmCount])}
        />
      </Section>
      <Section title="Virtual Machines" count={detail.vms.length}>
        <Table
          head={['Name', 'Status', 'Size', 'Region', 'Team', 'Created']}
          empty="No virtual machines found"
          rows={detail.vms.map((v) => [v.name, v.status, v.size, v.region, v.team ?? '—', formatDate(v.createdAt)])}
        />
      </Section>
    </div>
  );
}

export function CompanyPage() {
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const id = Number(params.get('id'));
  const { user } = useAuth();
  const company = useCompany(Number.isInteger(id) ? id : 0);
  const [target, setTarget] = useState<SuspensionTarget | null>(null);
  const row = company.data?.company;
  const canWrite = staffMayWrite(user?.staffRole) && row !== undefined;

  return (
    <PageLayout
      title={row?.name ?? 'Loading...'}
      secondaryTitle="Company"
      onBack={() => navigate('/reseller/companies')}
      {...(canWrite
        ? {
            action: {
              name: row.status === 'active' ? COMPANIES_TEXT.suspend : COMPANIES_TEXT.resume,
              onClick: () => setTarget({ id: row.id, name: row.name, status: row.status }),
              // Suspending stops the company's machines: red here as in its dialog (issue 25).
              variant: row.status === 'active' ? ('danger' as const) : ('primary' as const),
            },
          }
        : {})}
    >
      {company.isPending && id > 0 ? (
        <Spinner />
      ) : company.error || !company.data ? (
        <p role="alert" className="text-sm text-red-600 dark:text-red-400">
          {errorText(company.error, 'Error fetching company') ?? COMPANIES_TEXT.notFound}
        </p>
      ) : (
        <Contents detail={company.data} canWrite={canWrite} />
      )}
      <SuspensionDialog target={target} onClose={() => setTarget(null)} />
    </PageLayout>
  );
}
