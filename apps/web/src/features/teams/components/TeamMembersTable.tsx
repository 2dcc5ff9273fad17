/** A team's members: User, Role, Email; 5 per page; row → /user. */
import { Users } from 'lucide-react';
import { useNavigate } from 'react-router';
import { PAGE_SIZE } from '@portal/contract/constants';
import { ERRORS, TEXT, withDetail } from '@portal/contract/messages';
import { DataTable } from '../../../components/ui/DataTable.tsx';
import { errorMessage } from '../../../lib/api.ts';
import { useTableState } from '../../../lib/use-table-state.ts';
import { useRoles } from '../api/roles.ts';
import { useTeamDetails } from '../api/team-details.ts';
import { RolesFetchError } from './RolesFetchError.tsx';

export function TeamMembersTable({ teamId }: { teamId: number }) {
  const navigate = useNavigate();
  const table = useTableState();
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
          { key: 'user', header: 'User', render: (m) => <span className="font-medium text-slate-900">{m.name}</span> },
          { key: 'role', header: 'Role', render: (m) => roleName(m.roleId) },
          { key: 'email', header: 'Email', render: (m) => m.email },
        ]}
        rows={team.error ? [] : team.data?.members}
        rowKey={(m) => m.id}
        rowLabel={(m) => m.name}
        onRowClick={(m) => navigate(`/user?id=${m.id}`)}
        loading={team.isPending}
        error={team.error ? withDetail(ERRORS.fetchTeam, errorMessage(team.error)) : null}
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
