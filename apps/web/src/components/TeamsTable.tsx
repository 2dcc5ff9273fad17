/** The Teams table (dashboard and /teams): search, refresh, paging, row → /team, trash → delete confirmation. */
import Trash2 from 'lucide-react/icons/trash-2';
import UsersRound from 'lucide-react/icons/users-round';
import { keepPreviousData } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useNavigate } from 'react-router';
import { toast } from 'react-toastify';
import { PAGE_SIZE, TEAMS_FETCH_DELAY_MS } from '@portal/contract/constants';
import { ERRORS, TEXT } from '@portal/contract/messages';
import { routes } from '@portal/contract/routes';
import type { Team } from '@portal/contract/teams';
import { TEAM_AND_USER_READS } from '../lib/reads.ts';
import { useRouteMutation, useRouteQuery } from '../lib/route-query.ts';
import { useTableState } from '../lib/use-table-state.ts';
import { DataTable } from './ui/DataTable.tsx';
import { DeleteConfirmationModal } from './ui/DeleteConfirmationModal.tsx';
import { errorText } from './ui/ErrorText.tsx';

export function TeamsTable({ action }: { action?: { label: string; onClick: () => void } }) {
  const navigate = useNavigate();
  const table = useTableState(TEAMS_FETCH_DELAY_MS);
  const list = useRouteQuery(
    routes.teams.list,
    { query: { ...table.query, rowsPerPage: PAGE_SIZE.dashboardTeams } },
    { placeholderData: keepPreviousData },
  );
  const [selected, setSelected] = useState<Pick<Team, 'id' | 'name'> | null>(null);
  const del = useRouteMutation(routes.teams.delete, { invalidates: TEAM_AND_USER_READS });

  // A failed fetch empties the list and resets the page count.
  const failed = !!list.error;
  useEffect(() => {
    if (failed) table.setPage(1);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [failed]);

  function confirmDelete() {
    if (!selected) return;
    // The delete refreshes the team reads, this list included.
    const { name } = selected;
    del.mutate(
      { body: { teamId: selected.id } },
      {
        onSuccess: () => {
          toast.success(TEXT.teamDeleted(name));
          setSelected(null);
        },
      },
    );
  }
  function closeDelete() {
    del.reset();
    setSelected(null);
  }

  return (
    <>
      <DataTable
        title={TEXT.teamsTableTitle}
        message={TEXT.teamsTableMessage}
        icon={<UsersRound className="h-5 w-5" />}
        columns={[
          {
            key: 'name',
            header: 'Team',
            render: (t) => <span className="font-medium text-slate-900 dark:text-slate-100">{t.name}</span>,
          },
          { key: 'users', header: 'Users', align: 'center', render: (t) => t.userCount },
          { key: 'vms', header: 'Virtual Machines', align: 'center', render: (t) => t.vmCount },
          {
            key: 'delete',
            header: <span className="sr-only">Delete</span>,
            align: 'right',
            // Only a role that may delete the team is offered the trash icon (the server still checks).
            render: (t) =>
              !t.permissions.includes('team.delete') ? null : (
                <button
                  type="button"
                  aria-label={`Delete ${t.name}`}
                  className="rounded p-1.5 text-slate-400 hover:bg-red-50 dark:hover:bg-red-950/50 hover:text-red-600"
                  onClick={(e) => {
                    e.stopPropagation();
                    del.reset();
                    setSelected({ id: t.id, name: t.name });
                  }}
                >
                  <Trash2 className="h-4 w-4" />
                </button>
              ),
          },
        ]}
        rows={failed ? [] : list.data?.data}
        rowKey={(t) => t.id}
        rowLabel={(t) => t.name}
        onRowClick={(t) => navigate(`/team?id=${t.id}`)}
        loading={list.isPending}
        error={errorText(list.error, ERRORS.fetchTeams)}
        noDataMessage={TEXT.noTeams}
        search={{ value: table.search, onChange: table.setSearch, placeholder: TEXT.searchTeams }}
        onRefresh={() => list.refetch()}
        {...(action ? { action } : {})}
        page={table.page}
        totalPages={failed ? 1 : (list.data?.totalPages ?? 0)}
        onPageChange={table.setPage}
      />
      <DeleteConfirmationModal
        target={selected}
        item="team"
        pending={del.isPending}
        error={del.error}
        errorPrefix={ERRORS.deleteTeam}
        onConfirm={confirmDelete}
        onCancel={closeDelete}
      />
    </>
  );
}
