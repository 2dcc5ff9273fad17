/** A team's members: User, Role, Email; 5 per page; row → /user. */
import Users from 'lucide-react/icons/users';
import { useNavigate } from 'react-router';
import { PAGE_SIZE } from '@portal/contract/constants';
import { ERRORS, TEXT } from '@portal/contract/messages';
import { RolesFetchError } from '../../../components/RolesFetchError.tsx';
import { DataTable } from '../../../components/ui/DataTable.tsx';
import { errorText } from '../../../components/ui/ErrorText.tsx';
import { wrapClass } from '../../../components/ui/wrap.ts';
import { useRoles } from '../../../lib/roles.ts';
import { useTableState } from '../../../lib/use-table-state.ts';
import { useTeamDetails } from '../api/team-details.ts';

export function TeamMembersTable({ teamId }: { teamId: number }) {
  const navigate = useNavigate();
  const table = useTableState(undefined, 'members');
  const team = useTeamDetails(teamId, { ...table.query, rowsPerPage: PAGE_SIZE.teamMembers });
  const roles = useRoles();
  const roleName = (id: number) => roles.data?.find((r) => r.id === id)?.name ?? `Role ${id}`;
  return (
    <div className="space-y-2">
      <RolesFetchError error={roles.error} />
      <DataTable
        title="Team Members"
        icon={<Users className="h-5 w-5" />}
        columns={[
          {
            key: 'user',
            header: 'User',
            render: (m) => (
              <span className={`font-medium text-slate-900 dark:text-slate-100 ${wrapClass(m.name)}`}>{m.name}</span>
            ),
          },
          { key: 'role', header: 'Role', render: (m) => roleName(m.roleId) },
          {
            key: 'email',
            header: 'Email',
            // An address has no space to wrap at: without this the row is wider than a phone and its last
            // column (Remove, the trash icon) is cut off at the right edge (issue 25, defect 2).
            className: 'wrap-anywhere',
            render: (m) => m.email,
          },
        ]}
        rows={team.error ? [] : team.data?.members}
        rowKey={(m) => m.id}
        rowLabel={(m) => m.name}
        onRowClick={(m) => navigate(`/user?id=${m.id}`)}
        loading={team.isPending}
        error={errorText(team.error, ERRORS.fetchTeam)}
        noDataMessage={TEXT.noTeamMembers}
        search={{ value: table.search, onChange: table.setSearch, placeholder: TEXT.searchTeamMembers }}
        onRefresh={() => team.refetch()}
        page={table.page}
        totalPages={team.error ? 1 : (team.data?.totalPages ?? 0)}
        onPageChange={table.setPage}
      />
    </div>
  );
}
