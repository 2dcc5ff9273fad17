/**
 * /createEditTeam — three modes: name entry → build (available users beside members) → set member
 * roles. Back: permissions → build, build → the team view, otherwise the previous page.
 */
import { zodResolver } from '@hookform/resolvers/zod';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useForm } from 'react-hook-form';
import { useNavigate, useSearchParams } from 'react-router';
import { toast } from 'react-toastify';
import { z } from 'zod';
import { ERRORS, TEXT, withDetail } from '@portal/contract/messages';
import { routes } from '@portal/contract/routes';
import { teamNameSchema } from '@portal/contract/validation';
import { Button } from '../../../components/ui/Button.tsx';
import { DataTable } from '../../../components/ui/DataTable.tsx';
import { PageLayout } from '../../../components/ui/PageLayout.tsx';
import { TextField } from '../../../components/ui/TextField.tsx';
import { callApi, errorMessage } from '../../../lib/api.ts';
import { useTableState } from '../../../lib/use-table-state.ts';
import { useUsersList } from '../../users/api/users.ts';
import { isAdminRole, useRoles } from '../api/roles.ts';
import { useTeamDetails } from '../api/team-details.ts';
import { useAddTeamUser, useAssignRoles, useCreateTeam, useRemoveTeamUser } from '../api/team-mutations.ts';
import { RolesFetchError } from '../components/RolesFetchError.tsx';

type Mode = 'name' | 'build' | 'permissions';
/** Members added while building start as Operators; roles are set in the next step. */
const DEFAULT_MEMBER_ROLE = 2;
const BUILD_PAGE_SIZE = 5;

const nameSchema = z.object({ name: teamNameSchema });
type NameForm = z.input<typeof nameSchema>;

export function CreateEditTeamPage() {
  const navigate = useNavigate();
  const [params, setParams] = useSearchParams();
  const teamId = Number(params.get('id')) || 0;
  const [mode, setMode] = useState<Mode>(teamId ? 'build' : 'name');
  const [error, setError] = useState<string | null>(null);
  const create = useCreateTeam();
  const form = useForm<NameForm>({ resolver: zodResolver(nameSchema), defaultValues: { name: '' } });

  const back = () => {
    if (mode === 'permissions') setMode('build');
    else if (mode === 'build' && teamId) navigate(`/team?id=${teamId}`);
    else navigate(-1);
  };

  const onCreate = form.handleSubmit(async ({ name }) => {
    setError(null);
    try {
      const { teamId: id } = await create.mutateAsync(name);
      setParams({ id: String(id) }, { replace: true });
      setMode('build');
    } catch (err) {
      setError(withDetail(ERRORS.createTeam, errorMessage(err)));
    }
  });

  return (
    <PageLayout title={teamId ? 'Edit Team' : 'Create Team'} secondaryTitle={mode === 'name' ? 'Name your team' : mode === 'build' ? 'Add members' : 'Set member roles'} onBack={back}>
      {mode === 'name' && (
        <form onSubmit={onCreate} className="max-w-md space-y-4 rounded-lg border border-slate-200 bg-white p-6 shadow-sm" noValidate>
          <TextField<NameForm> name="name" label="Team name" required register={form.register} errors={form.formState.errors} autoFocus />
          {error && <p role="alert" className="text-sm text-red-600">{error}</p>}
          <Button type="submit" disabled={form.formState.isSubmitting}>
            Create Team
          </Button>
        </form>
      )}
      {mode === 'build' && teamId > 0 && <BuildTeam teamId={teamId} onNext={() => setMode('permissions')} />}
      {mode === 'permissions' && teamId > 0 && <SetRoles teamId={teamId} onDone={() => navigate(`/team?id=${teamId}`)} />}
    </PageLayout>
  );
}

function BuildTeam({ teamId, onNext }: { teamId: number; onNext: () => void }) {
  const available = useTableState();
  const members = useTableState();
  const users = useUsersList({ ...available.query, rowsPerPage: BUILD_PAGE_SIZE, excludeTeamId: teamId });
  const team = useTeamDetails(teamId, { ...members.query, rowsPerPage: BUILD_PAGE_SIZE });
  const add = useAddTeamUser();
  const remove = useRemoveTeamUser();
  const [error, setError] = useState<string | null>(null);

  async function run(action: () => Promise<unknown>, prefix: string) {
    setError(null);
    try {
      await action();
    } catch (err) {
      setError(withDetail(prefix, errorMessage(err)));
    }
  }

  return (
    <div className="space-y-4">
      {error && <p role="alert" className="text-sm text-red-600">{error}</p>}
      <div className="grid gap-6 xl:grid-cols-2">
        <DataTable
          title="Available Users"
          columns={[
            { key: 'name', header: 'User', render: (u) => <span className="font-medium text-slate-900">{u.name}</span> },
            { key: 'email', header: 'Email', render: (u) => u.email },
            {
              key: 'add',
              header: <span className="sr-only">Add</span>,
              align: 'right',
              render: (u) => (
                <Button variant="secondary" className="px-3 py-1" aria-label={`Add ${u.name}`} onClick={() => void run(() => add.mutateAsync({ teamId, userId: u.id, roleId: DEFAULT_MEMBER_ROLE }), ERRORS.addUserToTeam)}>
                  Add
                </Button>
              ),
            },
          ]}
          rows={users.data?.data}
          rowKey={(u) => u.id}
          loading={users.isPending}
          error={users.error ? withDetail(ERRORS.fetchUsers, errorMessage(users.error)) : null}
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
            { key: 'name', header: 'User', render: (m) => <span className="font-medium text-slate-900">{m.name}</span> },
            { key: 'email', header: 'Email', render: (m) => m.email },
            {
              key: 'remove',
              header: <span className="sr-only">Remove</span>,
              align: 'right',
              render: (m) => (
                <Button variant="ghost" className="px-3 py-1 text-red-600" aria-label={`Remove ${m.name}`} onClick={() => void run(() => remove.mutateAsync({ teamId, userId: m.id }), ERRORS.removeUserFromTeam)}>
                  Remove
                </Button>
              ),
            },
          ]}
          rows={team.error ? [] : team.data?.members}
          rowKey={(m) => m.id}
          loading={team.isPending}
          error={team.error ? withDetail(ERRORS.fetchTeam, errorMessage(team.error)) : null}
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

function SetRoles({ teamId, onDone }: { teamId: number; onDone: () => void }) {
  const perms = useQuery({ queryKey: ['teams', 'permissions', teamId], queryFn: () => callApi(routes.permissions.list, { params: { id: teamId } }) });
  const roles = useRoles();
  const assign = useAssignRoles();
  const [choices, setChoices] = useState<Record<number, number>>({});
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (perms.data) setChoices(Object.fromEntries(perms.data.members.map((m) => [m.id, m.roleId])));
  }, [perms.data]);
  const assignable = (roles.data ?? []).filter((r) => !isAdminRole(r));

  async function save() {
    if (!perms.data) return;
    setError(null);
    const assignments = perms.data.members.filter((m) => m.roleId !== 1 && choices[m.id] !== m.roleId).map((m) => ({ userId: m.id, roleId: choices[m.id]! }));
    try {
      if (assignments.length > 0) await assign.mutateAsync({ teamId, assignments });
      toast.success('Team saved');
      onDone();
    } catch (err) {
      setError(withDetail(ERRORS.updateRole, errorMessage(err)));
    }
  }

  if (perms.isPending) return <p className="text-sm text-slate-500">Loading…</p>;
  if (perms.error) return <p role="alert" className="text-sm text-red-600">{withDetail(ERRORS.fetchTeam, errorMessage(perms.error))}</p>;
  return (
    <div className="max-w-3xl space-y-4">
      <RolesFetchError error={roles.error} />
      <div className="rounded-lg border border-slate-200 bg-white shadow-sm">
        {perms.data.members.length === 0 ? (
          <p className="px-4 py-8 text-center text-sm text-slate-500">{TEXT.noTeamMembers}</p>
        ) : (
          <ul className="divide-y divide-slate-100">
            {perms.data.members.map((m) => (
              <li key={m.id} className="flex items-center gap-4 px-4 py-3">
                <div className="min-w-0 flex-1">
                  <p className="font-medium text-slate-900">{m.name}</p>
                  <p className="text-sm text-slate-500">{m.email}</p>
                </div>
                {m.roleId === 1 ? (
                  <span className="rounded-full bg-brand-50 px-3 py-1 text-sm font-medium text-brand-700">Admin</span>
                ) : (
                  <select
                    aria-label={`Role of ${m.name}`}
                    value={choices[m.id] ?? m.roleId}
                    onChange={(e) => setChoices((c) => ({ ...c, [m.id]: Number(e.target.value) }))}
                    className="rounded-md border border-slate-300 px-3 py-1.5 text-sm"
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
      <div className="rounded-lg bg-slate-100 p-4 text-sm text-slate-600">
        {perms.data.roles.map((r) => (
          <p key={r.id}>
            <strong>{r.name}:</strong> {r.info}
          </p>
        ))}
      </div>
      {error && <p role="alert" className="text-sm text-red-600">{error}</p>}
      <div className="flex justify-end">
        <Button onClick={() => void save()} disabled={assign.isPending}>
          Save Roles
        </Button>
      </div>
    </div>
  );
}
