/** /user?id= — names (Save), read-only email and created date, and team memberships with roles. */
import { zodResolver } from '@hookform/resolvers/zod';
import { useEffect } from 'react';
import { useForm } from 'react-hook-form';
import { Navigate, useNavigate, useSearchParams } from 'react-router';
import { toast } from 'react-toastify';
import type { z } from 'zod';
import { ADMIN_ROLE_ID, PAGE_SIZE } from '@portal/contract/constants';
import { ERRORS, TEXT, VALIDATION } from '@portal/contract/messages';
import { routes } from '@portal/contract/routes';
import { userEditFormSchema } from '@portal/contract/validation';
import { RolesFetchError } from '../../../components/RolesFetchError.tsx';
import { Button } from '../../../components/ui/Button.tsx';
import { DataTable } from '../../../components/ui/DataTable.tsx';
import { ErrorText, errorText } from '../../../components/ui/ErrorText.tsx';
import { PageLayout } from '../../../components/ui/PageLayout.tsx';
import { TextField } from '../../../components/ui/TextField.tsx';
import { formatDate } from '../../../lib/dates.ts';
import { isAdminRole, useRoles } from '../../../lib/roles.ts';
import { useTableState } from '../../../lib/use-table-state.ts';
import { useMemberships, useUser, useUserWrite } from '../api/users.ts';

type EditForm = z.input<typeof userEditFormSchema>;

export function UserPage() {
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const userId = Number(params.get('id'));
  const valid = Number.isInteger(userId) && userId > 0;
  const user = useUser(valid ? userId : 0);
  const edit = useUserWrite(routes.users.edit);
  const form = useForm<EditForm>({ resolver: zodResolver(userEditFormSchema), defaultValues: { firstName: '', lastName: '' } });
  const loaded = user.data;
  useEffect(() => {
    if (loaded) form.reset({ firstName: loaded.firstName, lastName: loaded.lastName });
  }, [loaded, form]);

  if (!valid) return <Navigate to="/users" replace />;

  const onSave = form.handleSubmit((values) =>
    edit.mutateAsync({ body: { id: userId, firstName: values.firstName, lastName: values.lastName } }).then(
      () => toast.success(VALIDATION.userUpdated),
      // The error shows from edit.error.
      () => undefined,
    ),
  );

  return (
    <PageLayout title={loaded?.name ?? 'User'} secondaryTitle="User details" onBack={() => navigate(-1)}>
      {user.error ? (
        <ErrorText error={user.error} prefix={ERRORS.fetchUser} />
      ) : (
        <div className="space-y-6">
          <form onSubmit={onSave} className="max-w-3xl space-y-4 rounded-lg border border-slate-200 bg-white p-6 shadow-sm" noValidate>
            <div className="grid gap-4 sm:grid-cols-2">
              <TextField<EditForm> name="firstName" label="First Name" register={form.register} errors={form.formState.errors} />
              <TextField<EditForm> name="lastName" label="Last Name" register={form.register} errors={form.formState.errors} />
            </div>
            <dl className="grid gap-4 text-sm sm:grid-cols-2">
              <div>
                <dt className="font-medium text-slate-700">Email</dt>
                <dd className="mt-1 text-slate-900">{loaded?.email ?? '…'}</dd>
              </div>
              <div>
                <dt className="font-medium text-slate-700">Created</dt>
                <dd className="mt-1 text-slate-900">{loaded ? formatDate(loaded.createdAt) : '…'}</dd>
              </div>
            </dl>
            <ErrorText error={edit.error} prefix={ERRORS.editUser} />
            <Button type="submit" disabled={form.formState.isSubmitting}>
              Save
            </Button>
          </form>
          <MembershipsTable userId={userId} />
        </div>
      )}
    </PageLayout>
  );
}

function MembershipsTable({ userId }: { userId: number }) {
  const table = useTableState();
  const memberships = useMemberships(userId, { ...table.query, rowsPerPage: PAGE_SIZE.userMemberships });
  const roles = useRoles();
  const updateRole = useUserWrite(routes.roles.updateUserRoleForTeam);
  const remove = useUserWrite(routes.teams.removeUser);
  const assignable = (roles.data ?? []).filter((r) => !isAdminRole(r));
  // One error line: starting either write clears the other's error.
  const setRole = (teamId: number, roleId: number) => {
    remove.reset();
    updateRole.mutate({ body: { teamId, userId, roleId } });
  };
  const removeFrom = (teamId: number) => {
    updateRole.reset();
    remove.mutate({ body: { teamId, userId } });
  };

  return (
    <div className="max-w-3xl space-y-2">
      <ErrorText error={updateRole.error} prefix={ERRORS.updateRole} />
      <ErrorText error={remove.error} prefix={ERRORS.removeUserFromTeam} />
      <RolesFetchError error={roles.error} />
      <DataTable
        title="Team Memberships"
        columns={[
          { key: 'team', header: 'Team', render: (m) => <span className="font-medium text-slate-900">{m.name}</span> },
          {
            key: 'role',
            header: 'Role',
            render: (m) =>
              m.roleId === ADMIN_ROLE_ID ? (
                <span className="font-medium text-brand-700">Admin</span>
              ) : (
                <select
                  aria-label={`Role in ${m.name}`}
                  value={m.roleId}
                  onChange={(e) => setRole(m.id, Number(e.target.value))}
                  className="rounded-md border border-slate-300 px-2 py-1 text-sm"
                >
                  {assignable.map((r) => (
                    <option key={r.id} value={r.id}>
                      {r.name}
                    </option>
                  ))}
                </select>
              ),
          },
          {
            key: 'remove',
            header: <span className="sr-only">Remove</span>,
            align: 'right',
            render: (m) => (
              <Button variant="ghost" className="px-3 py-1 text-red-600" aria-label={`Remove from ${m.name}`} onClick={() => removeFrom(m.id)}>
                Remove
              </Button>
            ),
          },
        ]}
        rows={memberships.error ? [] : memberships.data?.data}
        rowKey={(m) => m.id}
        loading={memberships.isPending}
        error={errorText(memberships.error, ERRORS.fetchTeams)}
        noDataMessage={TEXT.noTeams}
        search={{ value: table.search, onChange: table.setSearch, placeholder: TEXT.searchTeams }}
        onRefresh={() => memberships.refetch()}
        page={table.page}
        totalPages={memberships.error ? 1 : (memberships.data?.totalPages ?? 0)}
        onPageChange={table.setPage}
      />
    </div>
  );
}
