/** /user?id= — names (Save), read-only email and created date, and team memberships with roles. */
import { zodResolver } from '@hookform/resolvers/zod';
import { useEffect, useState } from 'react';
import { useForm } from 'react-hook-form';
import { Navigate, useSearchParams } from 'react-router';
import { toast } from 'react-toastify';
import type { z } from 'zod';
import { ADMIN_ROLE_ID, PAGE_SIZE } from '@portal/contract/constants';
import { ERRORS, TEXT, VALIDATION } from '@portal/contract/messages';
import { routes } from '@portal/contract/routes';
import { userEditFormSchema } from '@portal/contract/validation';
import type { Membership, Role } from '@portal/contract/teams';
import { RolesFetchError } from '../../../components/RolesFetchError.tsx';
import { ConfirmDialog } from '../../../components/ui/ConfirmDialog.tsx';
import { Button } from '../../../components/ui/Button.tsx';
import { DataTable } from '../../../components/ui/DataTable.tsx';
import { ErrorText, errorText } from '../../../components/ui/ErrorText.tsx';
import { LoadFailure, failureTitle } from '../../../components/ui/LoadFailure.tsx';
import { PageLayout } from '../../../components/ui/PageLayout.tsx';
import { TextField } from '../../../components/ui/TextField.tsx';
import { useAuth } from '../../../lib/auth-context.tsx';
import { formatDate } from '../../../lib/dates.ts';
import { isAdminRole, useRoles } from '../../../lib/roles.ts';
import { useTableState } from '../../../lib/use-table-state.ts';
import { useBack } from '../../../lib/use-back.ts';
import { useMemberships, useTeamPermissions, useUser, useUserWrite } from '../api/users.ts';
import { CompanyAdminCard } from '../components/CompanyAdminCard.tsx';

type EditForm = z.input<typeof userEditFormSchema>;

export function UserPage() {
  const back = useBack('/users');
  const [params] = useSearchParams();
  const userId = Number(params.get('id'));
  const valid = Number.isInteger(userId) && userId > 0;
  const { user: me } = useAuth();
  const user = useUser(valid ? userId : 0);
  const edit = useUserWrite(routes.users.edit);
  const form = useForm<EditForm>({
    resolver: zodResolver(userEditFormSchema),
    defaultValues: { firstName: '', lastName: '' },
  });
  const loaded = user.data;
  useEffect(() => {
    if (loaded) form.reset({ firstName: loaded.firstName, lastName: loaded.lastName });
  }, [loaded, form]);

  if (!valid) return <Navigate to="/users" replace />;
  // Names are edited by the user themselves or a company administrator (the server checks the same).
  const canEdit = !!me && (me.isCompanyAdmin || me.id === userId);

  const onSave = form.handleSubmit((values) =>
    edit.mutateAsync({ body: { id: userId, firstName: values.firstName, lastName: values.lastName } }).then(
      () => toast.success(VALIDATION.userUpdated),
      // The error shows from edit.error.
      () => undefined,
    ),
  );

  return (
    <PageLayout
      title={loaded?.name ?? (user.error ? failureTitle(user.error) : 'User')}
      secondaryTitle="User details"
      onBack={back}
    >
      {user.error ? (
        <LoadFailure
          error={user.error}
          notFound={TEXT.userNotFound}
          prefix={ERRORS.fetchUser}
          back={{ to: '/users', label: 'Back to Users' }}
          onRetry={() => void user.refetch()}
        />
      ) : (
        <div className="space-y-6">
          <form
            onSubmit={onSave}
            className="max-w-3xl space-y-4 rounded-lg border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-6 shadow-sm"
            noValidate
          >
            <div className="grid gap-4 sm:grid-cols-2">
              <TextField<EditForm>
                name="firstName"
                label="First Name"
                register={form.register}
                errors={form.formState.errors}
                disabled={!canEdit}
              />
              <TextField<EditForm>
                name="lastName"
                label="Last Name"
                register={form.register}
                errors={form.formState.errors}
                disabled={!canEdit}
              />
            </div>
            <dl className="grid gap-4 text-sm sm:grid-cols-2">
              <div>
                <dt className="font-medium text-slate-700 dark:text-slate-300">Email</dt>
                <dd className="mt-1 text-slate-900 dark:text-slate-100">{loaded?.email ?? '…'}</dd>
              </div>
              <div>
                <dt className="font-medium text-slate-700 dark:text-slate-300">Created</dt>
                <dd className="mt-1 text-slate-900 dark:text-slate-100">
                  {loaded ? formatDate(loaded.createdAt) : '…'}
                </dd>
              </div>
            </dl>
            <ErrorText error={edit.error} prefix={ERRORS.editUser} />
            <span title={canEdit ? undefined : TEXT.companyAdminsOnly} className="inline-block">
              <Button
                type="submit"
                disabled={!canEdit || form.formState.isSubmitting}
                aria-description={canEdit ? undefined : TEXT.companyAdminsOnly}
              >
                Save
              </Button>
            </span>
          </form>
          {/* Granting and revoking company administration: company administrators only (the server checks too). */}
          {loaded && me?.isCompanyAdmin && <CompanyAdminCard user={loaded} isSelf={me.id === loaded.id} />}
          <MembershipsTable userId={userId} userName={loaded?.name ?? ''} />
        </div>
      )}
    </PageLayout>
  );
}

/** What the caller may do in one team: company administrators everything, others as the team's answer says. */
function useCanManageTeam(teamId: number): boolean {
  const { user: me } = useAuth();
  const admin = me?.isCompanyAdmin ?? false;
  const team = useTeamPermissions(teamId, !admin);
  return admin || (team.data?.permissions.includes('team.manage') ?? false);
}

function RoleCell({
  membership,
  assignable,
  onChange,
}: {
  membership: Membership;
  assignable: Role[];
  onChange: (roleId: number) => void;
}) {
  const canManage = useCanManageTeam(membership.id);
  if (membership.roleId === ADMIN_ROLE_ID)
    return <span className="font-medium text-brand-700 dark:text-brand-300">Admin</span>;
  return (
    <span title={canManage ? undefined : TEXT.roleLacks}>
      <select
        aria-label={`Role in ${membership.name}`}
        value={membership.roleId}
        disabled={!canManage}
        onChange={(e) => onChange(Number(e.target.value))}
        className="rounded-md border border-slate-300 dark:border-slate-600 bg-white dark:bg-slate-900 px-2 py-1 text-sm disabled:opacity-60"
      >
        {assignable.map((r) => (
          <option key={r.id} value={r.id}>
            {r.name}
          </option>
        ))}
      </select>
    </span>
  );
}

function RemoveCell({ membership, onRemove }: { membership: Membership; onRemove: () => void }) {
  const canManage = useCanManageTeam(membership.id);
  // A role that cannot manage the team is not offered the removal.
  if (!canManage) return null;
  return (
    <Button
      variant="ghost"
      className="px-3 py-1 text-red-600 dark:text-red-400"
      aria-label={`Remove from ${membership.name}`}
      onClick={onRemove}
    >
      Remove
    </Button>
  );
}

function MembershipsTable({ userId, userName }: { userId: number; userName: string }) {
  const table = useTableState(undefined, 'teams');
  const memberships = useMemberships(userId, { ...table.query, rowsPerPage: PAGE_SIZE.userMemberships });
  const roles = useRoles();
  const updateRole = useUserWrite(routes.roles.updateUserRoleForTeam);
  const remove = useUserWrite(routes.teams.removeUser);
  const [removing, setRemoving] = useState<Membership | null>(null);
  const assignable = (roles.data ?? []).filter((r) => !isAdminRole(r));
  // One error line: starting either write clears the other's error.
  const setRole = (team: Membership, roleId: number) => {
    remove.reset();
    const roleName = roles.data?.find((r) => r.id === roleId)?.name ?? String(roleId);
    updateRole.mutate(
      { body: { teamId: team.id, userId, roleId } },
      { onSuccess: () => toast.success(TEXT.roleChanged(team.name, roleName)) },
    );
  };
  const confirmRemove = () => {
    if (!removing) return;
    const team = removing;
    remove.mutate(
      { body: { teamId: team.id, userId } },
      {
        onSuccess: () => {
          toast.success(TEXT.membershipRemoved(userName, team.name));
          setRemoving(null);
        },
      },
    );
  };

  return (
    <div className="max-w-3xl space-y-2">
      <ErrorText error={updateRole.error} prefix={ERRORS.updateRole} />
      <RolesFetchError error={roles.error} />
      <DataTable
        title="Team Memberships"
        columns={[
          {
            key: 'team',
            header: 'Team',
            render: (m) => <span className="font-medium text-slate-900 dark:text-slate-100">{m.name}</span>,
          },
          {
            key: 'role',
            header: 'Role',
            render: (m) => (
              <RoleCell membership={m} assignable={assignable} onChange={(roleId) => setRole(m, roleId)} />
            ),
          },
          {
            key: 'remove',
            header: <span className="sr-only">Remove</span>,
            align: 'right',
            render: (m) => (
              <RemoveCell
                membership={m}
                onRemove={() => {
                  updateRole.reset();
                  remove.reset();
                  setRemoving(m);
                }}
              />
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
      <ConfirmDialog
        open={removing !== null}
        title={TEXT.removeMembershipTitle(removing?.name ?? '')}
        confirmLabel="Remove"
        variant="danger"
        pending={remove.isPending}
        error={remove.error}
        errorPrefix={ERRORS.removeUserFromTeam}
        onConfirm={confirmRemove}
        onCancel={() => {
          remove.reset();
          setRemoving(null);
        }}
      >
        <p className="text-sm text-slate-700 dark:text-slate-300">
          {TEXT.removeMembershipBody(userName || 'This user', removing?.name ?? '')}
        </p>
      </ConfirmDialog>
    </div>
  );
}
