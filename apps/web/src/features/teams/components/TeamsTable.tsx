/** The Teams table (dashboard and /teams): search, refresh, paging, row → /team, trash → delete confirmation. */
import { Trash2, UsersRound } from 'lucide-react';
import { useEffect, useState } from 'react';
import { useNavigate } from 'react-router';
import { PAGE_SIZE, TEAMS_FETCH_DELAY_MS } from '@portal/contract/constants';
import { ERRORS, TEXT, withDetail } from '@portal/contract/messages';
import type { Team } from '@portal/contract/teams';
import { DataTable } from '../../../components/ui/DataTable.tsx';
import { DeleteConfirmationModal } from '../../../components/ui/DeleteConfirmationModal.tsx';
import { errorMessage } from '../../../lib/api.ts';
import { useTableState } from '../../../lib/use-table-state.ts';
import { useTeamsList } from '../api/teams-list.ts';
import { useDeleteTeam } from '../api/team-mutations.ts';

export function TeamsTable({ action }: { action?: { label: string; onClick: () => void } }) {
  const navigate = useNavigate();
  const table = useTableState(TEAMS_FETCH_DELAY_MS);
  const list = useTeamsList({ ...table.query, rowsPerPage: PAGE_SIZE.dashboardTeams });
  const [selected, setSelected] = useState<Pick<Team, 'id' | 'name'> | null>(null);
  const [deleteError, setDeleteError] = useState<string | null>(null);
  const del = useDeleteTeam();

  // A failed fetch empties the list and resets the page count.
  const failed = !!list.error;
  useEffect(() => {
    if (failed) table.setPage(1);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [failed]);

  async function confirmDelete() {
    if (!selected) return;
    setDeleteError(null);
    try {
      await del.mutateAsync(selected.id);
      setSelected(null);
      await list.refetch();
    } catch (err) {
      setDeleteError(withDetail(ERRORS.deleteTeam, errorMessage(err)));
    }
  }

  return (
    <>
      <DataTable
        title={TEXT.teamsTableTitle}
        message={TEXT.teamsTableMessage}
        icon={<UsersRound className="h-5 w-5" />}
        columns={[
          { key: 'name', header: 'Team', render: (t) => <span className="font-medium text-slate-900">{t.name}</span> },
          { key: 'users', header: 'Users', align: 'center', render: (t) => t.userCount },
          { key: 'vms', header: 'Virtual Machines', align: 'center', render: (t) => t.vmCount },
          {
            key: 'delete',
            header: <span className="sr-only">Delete</span>,
            align: 'right',
            render: (t) => (
              <button
                type="button"
                aria-label={`Delete ${t.name}`}
                className="rounded p-1.5 text-slate-400 hover:bg-red-50 hover:text-red-600"
                onClick={(e) => {
                  e.stopPropagation();
                  setDeleteError(null);
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
        error={list.error ? withDetail(ERRORS.fetchTeams, errorMessage(list.error)) : null}
        noDataMessage={TEXT.noTeams}
        search={{ value: table.search, onChange: table.setSearch, placeholder: TEXT.searchTeams }}
        onRefresh={() => list.refetch()}
        {...(action ? { action } : {})}
        page={table.page}
        totalPages={failed ? 1 : (list.data?.totalPages ?? 0)}
        onPageChange={table.setPage}
      />
      <DeleteConfirmationModal
        open={selected !== null}
        name={selected?.name ?? ''}
        item="team"
        loading={del.isPending}
        error={deleteError}
        onConfirm={() => void confirmDelete()}
        onCancel={() => {
          setDeleteError(null);
          setSelected(null);
        }}
      />
    </>
  );
}
