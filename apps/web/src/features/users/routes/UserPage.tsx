/** /user?id= — names (Save), read-only email and created date, and team memberships with roles. */
import { zodResolver } from '@hookform/resolvers/zod';
import { useEffect, useState } from 'react';
import { useForm } from 'react-hook-form';
import { Navigate, useNavigate, useSearchParams } from 'react-router';
import { toast } from 'react-toastify';
import type { z } from 'zod';
import { PAGE_SIZE } from '@portal/contract/constants';
import { ERRORS, TEXT, VALIDATION, withDetail } from '@portal/contract/messages';
import { userEditFormSchema } from '@portal/contract/validation';
import { Button } from '../../../components/ui/Button.tsx';
import { DataTable } from '../../../components/ui/DataTable.tsx';
import { PageLayout } from '../../../components/ui/PageLayout.tsx';
import { TextField } from '../../../components/ui/TextField.tsx';
import { errorMessage } from '../../../lib/api.ts';
import { formatDate } from '../../../lib/dates.ts';
import { useTableState } from '../../../lib/use-table-state.ts';
import { isAdminRole, useRoles } from '../../teams/api/roles.ts';
import { useRemoveTeamUser, useUpdateRole } from '../../teams/api/team-mutations.ts';
import { useEditUser, useMemberships, useRefreshAfterUserWrite, useUser } from '../api/users.ts';
import { RolesFetchError } from '../../teams/components/RolesFetchError.tsx';

type EditForm = z.input<typeof userEditFormSchema>;

export function UserPage() {
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const userId = Number(params.get('id'));
  const valid = Number.isInteger(userId) && userId > 0;
  const user = useUser(valid ? userId : 0);
  const edit = useEditUser();
  const [error, setError] = useState<string | null>(null);
  const form = useForm<EditForm>({ resolver: zodResolver(userEditFormSchema), defaultValues: { firstName: '', lastName: '' } });
  const loaded = user.data;
  useEffect(() => {
    if (loaded) form.reset({ firstName: loaded.firstName, lastName: loaded.lastName });
  }, [loaded, form]);

  if (!valid) return <Navigate to="/users" replace />;

  const onSave = form.handleSubmit(async (values) => {
    setError(null);
    try {
      await edit.mutateAsync({ id: userId, firstName: values.firstName, lastName: values.lastName });
      toast.success(VALIDATION.userUpdated);
    } catch (err) {
      setError(withDetail(ERRORS.editUser, errorMessage(err)));
    }
  });

  return (
    <PageLayout title={loaded?.name ?? 'User'} secondaryTitle="User details" onBack={() => navigate(-1)}>
      {user.error ? (
        <p role="alert" className="text-sm text-red-600">
          {withDetail(ERRORS.fetchUser, errorMessage(user.error))}
        </p>
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
            {error && <p role="alert" className="text-sm text-red-600">{error}</p>}
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
  const updateRole = useUpdateRole();
  const remove = useRemoveTeamUser();
  const refresh = useRefreshAfterUserWrite();
  const [error, setError] = useState<string | null>(null);
  const assignable = (roles.data ?? []).filter((r) => !isAdminRole(r));

  async function run(action: () => Promise<unknown>, prefix: string) {
    setError(null);
    try {
      await action();
      await refresh();
    } catch (err) {
      setError(withDetail(prefix, errorMessage(err)));
    }
  }

  return (
    <div className="max-w-3xl space-y-2">
      {error && <p role="alert" className="text-sm text-red-600">{error}</p>}
      <RolesFetchError error={roles.error} />
      <DataTable
        title="Team Memberships"
        columns={[
          { key: 'team', header: 'Team', render: (m) => <span className="font-medium text-slate-900">{m.name}</span> },
          {
            key: 'role',
            header: 'Role',
            render: (m) =>
              m.roleId === 1 ? (
                <span className="font-medium text-brand-700">Admin</span>
              ) : (
                <select
                  aria-label={`Role in ${m.name}`}
                  value={m.roleId}
                  onChange={(e) => void run(() => updateRole.mutateAsync({ teamId: m.id, userId, roleId: Number(e.target.value) }), ERRORS.updateRole)}
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
              <Button variant="ghost" className="px-3 py-1 text-red-600" aria-label={`Remove from ${m.name}`} onClick={() => void run(() => remove.mutateAsync({ teamId: m.id, userId }), ERRORS.removeUserFromTeam)}>
                Remove
              </Button>
            ),
          },
        ]}
        rows={memberships.error ? [] : memberships.data?.data}
        rowKey={(m) => m.id}
        loading={memberships.isPending}
        error={memberships.error ? withDetail(ERRORS.fetchTeams, errorMessage(memberships.error)) : null}
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
