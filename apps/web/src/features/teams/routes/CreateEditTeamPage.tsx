/**
 * /createEditTeam — three modes: name entry → build (available users beside members) → set member
 * roles. Back: permissions → build, build → the team view, otherwise the previous page.
 */
import { zodResolver } from '@hookform/resolvers/zod';
import { keepPreviousData } from '@tanstack/react-query';
import { useState, type Dispatch, type SetStateAction } from 'react';
import { useForm } from 'react-hook-form';
import { useNavigate, useSearchParams } from 'react-router';
import { toast } from 'react-toastify';
import { z } from 'zod';
import { ADMIN_ROLE_ID } from '@portal/contract/constants';
import { ERRORS, TEXT } from '@portal/contract/messages';
import { OPERATOR_ROLE_ID } from '@portal/contract/permissions';
import { routes } from '@portal/contract/routes';
import { teamNameSchema } from '@portal/contract/validation';
import { RolesFetchError } from '../../../components/RolesFetchError.tsx';
import { Button } from '../../../components/ui/Button.tsx';
import { DataTable } from '../../../components/ui/DataTable.tsx';
import { ErrorText, errorText } from '../../../components/ui/ErrorText.tsx';
import { PageLayout } from '../../../components/ui/PageLayout.tsx';
import { wrapClass } from '../../../components/ui/wrap.ts';
import { TextField } from '../../../components/ui/TextField.tsx';
import { TEAM_AND_USER_READS } from '../../../lib/reads.ts';
import { isAdminRole, useRoles } from '../../../lib/roles.ts';
import { useRouteMutation, useRouteQuery } from '../../../lib/route-query.ts';
import { useTableState } from '../../../lib/use-table-state.ts';
import { useBack } from '../../../lib/use-back.ts';
import { useTeamDetails } from '../api/team-details.ts';

type Mode = 'name' | 'build' | 'permissions';
/** Members added while building start as Operators; roles are set in the next step. */
const DEFAULT_MEMBER_ROLE = OPERATOR_ROLE_ID;
const BUILD_PAGE_SIZE = 5;

const nameSchema = z.object({ name: teamNameSchema });
type NameForm = z.input<typeof nameSchema>;

export function CreateEditTeamPage() {
  const navigate = useNavigate();
  const previous = useBack('/teams');
  const [params, setParams] = useSearchParams();
  const teamId = Number(params.get('id')) || 0;
  const [mode, setMode] = useState<Mode>(teamId ? 'build' : 'name');
  // The roles chosen on the permissions step live here, not in that step: Back to build unmounts it, and the
  // choices must still be there when the user comes back to save them (issue 25, defect 8).
  const [editedRoles, setEditedRoles] = useState<Record<number, number>>({});
  const create = useRouteMutation(routes.teams.create, { invalidates: TEAM_AND_USER_READS });
  const form = useForm<NameForm>({ resolver: zodResolver(nameSchema), defaultValues: { name: '' } });

  const back = () => {
    if (mode === 'permissions') setMode('build');
    else if (mode === 'build' && teamId) navigate(`/team?id=${teamId}`);
    else previous();
  };

  const onCreate = form.handleSubmit(({ name }) =>
    create.mutateAsync({ body: { name, parentTeamId: null } }).then(
      ({ data }) => {
        setParams({ id: String(data.teamId) }, { replace: true });
        setMode('build');
      },
      // The error shows from create.error.
      () => undefined,
    ),
  );

  return (
    <PageLayout
      title={teamId ? 'Edit Team' : 'Create Team'}
      secondaryTitle={mode === 'name' ? 'Name your team' : mode === 'build' ? 'Add members' : 'Set member roles'}
      onBack={back}
    >
      {mode === 'name' && (
        <form
          onSubmit={onCreate}
          className="max-w-md space-y-4 rounded-lg border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-6 shadow-sm"
          noValidate
        >
          <TextField<NameForm>
            name="name"
            label="Team name"
            required
            register={form.register}
            errors={form.formState.errors}
            autoFocus
          />
          <ErrorText error={create.error} prefix={ERRORS.createTeam} />
          <Button type="submit" disabled={form.formState.isSubmitting}>
            Create Team
          </Button>
        </form>
      )}
      {mode === 'build' && teamId > 0 && <BuildTeam teamId={teamId} onNext={() => setMode('permissions')} />}
      {mode === 'permissions' && teamId > 0 && (
        <SetRoles
          teamId={teamId}
          edited={editedRoles}
          setEdited={setEditedRoles}
          onDone={() => navigate(`/team?id=${teamId}`)}
        />
      )}
    </PageLayout>
  );
}

function BuildTeam({ teamId, onNext }: { teamId: number; onNext: () => void }) {
  const available = useTableState(undefined, 'available');
  const members = useTableState(undefined, 'members');
  const users = useRouteQuery(
    routes.users.list,
    { query: { ...available.query, rowsPerPage: BUILD_PAGE_SIZE, excludeTeamId: teamId } },
    { placeholderData: keepPreviousData },
  );
  const team = useTeamDetails(teamId, { ...members.query, rowsPerPage: BUILD_PAGE_SIZE });
  const add = useRouteMutation(routes.teams.addUser, { invalidates: TEAM_AND_USER_READS });
  const remove = useRouteMutation(routes.teams.removeUser, { invalidates: TEAM_AND_USER_READS });
  // One error line: starting either write clears the other's error.
  const addUser = (userId: number) => {
    remove.reset();
    add.mutate({ body: { teamId, userId, roleId: DEFAULT_MEMBER_ROLE } });
  };
  const removeUser = (userId: number) => {
    add.reset();
    remove.mutate({ body: { teamId, userId } });
  };

  return (
    <div className="space-y-4">
      <ErrorText error={add.error} prefix={ERRORS.addUserToTeam} />
      <ErrorText error={remove.error} prefix={ERRORS.removeUserFromTeam} />
      <div className="grid gap-6 xl:grid-cols-2">
        <DataTable
          title="Available Users"
          columns={[
            {
              key: 'name',
              header: 'User',
              render: (u) => (
                <span className={`font-medium text-slate-900 dark:text-slate-100 ${wrapClass(u.name)}`}>{u.name}</span>
              ),
            },
            {
              key: 'email',
              header: 'Email',
              // An address has no space to wrap at: without this the row is wider than a phone and its last
              // column (Remove, the trash icon) is cut off at the right edge (issue 25, defect 2).
              className: 'wrap-anywhere',
              render: (u) => u.email,
            },
            {
              key: 'add',
              header: <span className="sr-only">Add</span>,
              align: 'right',
              render: (u) => (
                <Button
                  variant="secondary"
                  className="px-3 py-1"
                  aria-label={`Add ${u.name}`}
                  onClick={() => addUser(u.id)}
                >
                  Add
                </Button>
              ),
            },
          ]}
          rows={users.data?.data}
          rowKey={(u) => u.id}
          loading={users.isPending}
          error={errorText(users.error, ERRORS.fetchUsers)}
          noDataMessage={TEXT.noUsers}
          search={{ value: available.search, onChange: available.setSearch }}
          onRefresh={() => users.refetch()}
          page={available.page}
          totalPages={users.data?.totalPages ?? 0}
          onPageChange={available.setPage}
        />
        <DataTable
          title="Team Members"
          columns={[
            {
              key: 'name',
              header: 'User',
              render: (m) => (
                <span className={`font-medium text-slate-900 dark:text-slate-100 ${wrapClass(m.name)}`}>{m.name}</span>
              ),
            },
            {
              key: 'email',
              header: 'Email',
              // An address has no space to wrap at: without this the row is wider than a phone and its last
              // column (Remove, the trash icon) is cut off at the right edge (issue 25, defect 2).
              className: 'wrap-anywhere',
              render: (m) => m.email,
            },
            {
              key: 'remove',
              header: <span className="sr-only">Remove</span>,
              align: 'right',
              render: (m) => (
                <Button
                  variant="ghost"
                  className="px-3 py-1 text-red-600 dark:text-red-400"
                  aria-label={`Remove ${m.name}`}
                  onClick={() => removeUser(m.id)}
                >
                  Remove
                </Button>
              ),
            },
          ]}
          rows={team.error ? [] : team.data?.members}
          rowKey={(m) => m.id}
          loading={team.isPending}
          error={errorText(team.error, ERRORS.fetchTeam)}
          noDataMessage={TEXT.noTeamMembers}
          search={{ value: members.search, onChange: members.setSearch, placeholder: TEXT.searchTeamMembers }}
          onRefresh={() => team.refetch()}
          page={members.page}
          totalPages={team.error ? 1 : (team.data?.totalPages ?? 0)}
          onPageChange={members.setPage}
        />
      </div>
      <div className="flex justify-end">
        <Button onClick={onNext}>Set Permissions</Button>
      </div>
    </div>
  );
}

function SetRoles({
  teamId,
  edited,
  setEdited,
  onDone,
}: {
  teamId: number;
  /** Unsaved role choices by user id, kept by the page across Back to build. */
  edited: Record<number, number>;
  setEdited: Dispatch<SetStateAction<Record<number, number>>>;
  onDone: () => void;
}) {
  const perms = useRouteQuery(routes.permissions.list, { params: { id: teamId } });
  const roles = useRoles();
  const assign = useRouteMutation(routes.permissions.assign, { invalidates: TEAM_AND_USER_READS });
  // The roles chosen here, over the roles the server reports (derived, so a refetch needs no copying effect).
  const choices: Record<number, number> = {
    ...Object.fromEntries((perms.data?.members ?? []).map((m) => [m.id, m.roleId])),
    ...edited,
  };
  const assignable = (roles.data ?? []).filter((r) => !isAdminRole(r));

  function save() {
    if (!perms.data) return;
    const assignments = perms.data.members
      .filter((m) => m.roleId !== ADMIN_ROLE_ID && choices[m.id] !== m.roleId)
      .map((m) => ({ userId: m.id, roleId: choices[m.id]! }));
    const done = () => {
      toast.success('Team saved');
      onDone();
    };
    if (assignments.length > 0) assign.mutate({ body: { teamId, assignments } }, { onSuccess: done });
    else done();
  }

  if (perms.isPending) return <p className="text-sm text-slate-500 dark:text-slate-400">Loading…</p>;
  if (perms.error) return <ErrorText error={perms.error} prefix={ERRORS.fetchTeam} />;
  return (
    <div className="max-w-3xl space-y-4">
      <RolesFetchError error={roles.error} />
      <div className="rounded-lg border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 shadow-sm">
        {perms.data.members.length === 0 ? (
          <p className="px-4 py-8 text-center text-sm text-slate-500 dark:text-slate-400">{TEXT.noTeamMembers}</p>
        ) : (
          <ul className="divide-y divide-slate-100 dark:divide-slate-800">
            {perms.data.members.map((m) => (
              <li key={m.id} className="flex items-center gap-4 px-4 py-3">
                <div className="min-w-0 flex-1">
                  <p className="font-medium text-slate-900 dark:text-slate-100">{m.name}</p>
                  <p className="text-sm text-slate-500 dark:text-slate-400">{m.email}</p>
                </div>
                {m.roleId === ADMIN_ROLE_ID ? (
                  <span className="rounded-full bg-brand-50 dark:bg-slate-800 px-3 py-1 text-sm font-medium text-brand-700 dark:text-brand-300">
                    Admin
                  </span>
                ) : (
                  <select
                    aria-label={`Role of ${m.name}`}
                    value={choices[m.id] ?? m.roleId}
                    onChange={(e) => setEdited((c) => ({ ...c, [m.id]: Number(e.target.value) }))}
                    className="rounded-md border border-slate-300 dark:border-slate-600 px-3 py-1.5 text-sm"
                  >
                    {assignable.map((r) => (
                      <option key={r.id} value={r.id}>
                        {r.name}
                      </option>
                    ))}
                  </select>
                )}
              </li>
            ))}
          </ul>
        )}
      </div>
      <div className="rounded-lg bg-slate-100 dark:bg-slate-800 p-4 text-sm text-slate-600 dark:text-slate-300">
        {perms.data.roles.map((r) => (
          <p key={r.id}>
            <strong>{r.name}:</strong> {r.info}
          </p>
        ))}
      </div>
      <ErrorText error={assign.error} prefix={ERRORS.updateRole} />
      <div className="flex justify-end">
        <Button onClick={save} disabled={assign.isPending}>
          Save Roles
        </Button>
      </div>
    </div>
  );
}
