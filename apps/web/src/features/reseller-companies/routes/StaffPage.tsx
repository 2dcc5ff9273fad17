/**
 * /reseller/staff — the reseller's staff members. Owners invite (email + role), change a colleague's role and
 * remove them (never themselves); support staff see the list only.
 */
import { zodResolver } from '@hookform/resolvers/zod';
import UserCog from 'lucide-react/icons/user-cog';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { toast } from 'react-toastify';
import type { z } from 'zod';
import { STAFF_ROLE_NAMES, STAFF_ROLES, staffMayWrite, type StaffRole } from '@portal/contract/permissions';
import { STAFF_TEXT, inviteStaffFormSchema, resellerStaffRoutes as s } from '@portal/contract/reseller-companies';
import { Button } from '../../../components/ui/Button.tsx';
import { ConfirmDialog } from '../../../components/ui/ConfirmDialog.tsx';
import { DataTable } from '../../../components/ui/DataTable.tsx';
import { ErrorText, errorText } from '../../../components/ui/ErrorText.tsx';
import { Modal } from '../../../components/ui/Modal.tsx';
import { PageLayout } from '../../../components/ui/PageLayout.tsx';
import { TextField } from '../../../components/ui/TextField.tsx';
import { useAuth } from '../../../lib/auth-context.tsx';
import { useStaff, useStaffWrite } from '../api/staff.ts';

type InviteForm = z.input<typeof inviteStaffFormSchema>;
const selectClass =
  'rounded-md border border-slate-300 bg-white px-2 py-1 text-sm dark:border-slate-600 dark:bg-slate-900 dark:text-slate-100';

function InviteDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const invite = useStaffWrite(s.invite);
  const form = useForm<InviteForm>({
    resolver: zodResolver(inviteStaffFormSchema),
    defaultValues: { email: '', role: 'support' },
  });
  const close = () => {
    invite.reset();
    form.reset();
    onClose();
  };
  const onSubmit = form.handleSubmit((body) =>
    invite.mutateAsync({ body }).then(
      (res) => {
        toast.success(res.message);
        close();
      },
      () => undefined,
    ),
  );
  return (
    <Modal
      open={open}
      title={STAFF_TEXT.inviteTitle}
      onClose={close}
      footer={
        <>
          <Button variant="secondary" onClick={close}>
            Cancel
          </Button>
          <Button type="submit" form="invite-staff" disabled={invite.isPending}>
            {STAFF_TEXT.inviteSubmit}
          </Button>
        </>
      }
    >
      <form id="invite-staff" onSubmit={onSubmit} noValidate className="space-y-4">
        <TextField<InviteForm>
          name="email"
          label="Email"
          type="email"
          required
          register={form.register}
          errors={form.formState.errors}
        />
        <label className="block space-y-1 text-sm">
          <span className="font-medium text-slate-700 dark:text-slate-300">Role</span>
          <select {...form.register('role')} className={`${selectClass} block w-full py-2`}>
            {STAFF_ROLES.map((role) => (
              <option key={role} value={role}>
                {STAFF_ROLE_NAMES[role]}
              </option>
            ))}
          </select>
        </label>
        <ErrorText error={invite.error} />
      </form>
    </Modal>
  );
}

export function StaffPage() {
  const { user } = useAuth();
  const canWrite = staffMayWrite(user?.staffRole);
  const list = useStaff();
  const changeRole = useStaffWrite(s.changeRole);
  const remove = useStaffWrite(s.remove);
  const [inviting, setInviting] = useState(false);
  const [removing, setRemoving] = useState<{ id: number; email: string } | null>(null);

  const setRole = (id: number, role: StaffRole) =>
    changeRole.mutate(
      { params: { id }, body: { role } },
      {
        onSuccess: (res) => toast.success(res.message),
        onError: (err) => toast.error(errorText(err)),
      },
    );

  return (
    <PageLayout
      title={STAFF_TEXT.title}
      {...(canWrite ? { action: { name: STAFF_TEXT.invite, onClick: () => setInviting(true) } } : {})}
    >
      <DataTable
        title={STAFF_TEXT.title}
        message={STAFF_TEXT.message}
        icon={<UserCog className="h-5 w-5" />}
        columns={[
          {
            key: 'name',
            header: 'Name',
            render: (m) => (
              <span className="font-medium text-slate-900 dark:text-slate-100">
                {`${m.firstName} ${m.lastName}`.trim() || '—'}
                {!m.confirmed && (
                  <span className="ml-2 rounded bg-amber-100 px-1.5 py-0.5 text-xs font-medium text-amber-800 dark:bg-amber-900/50 dark:text-amber-200">
                    Invited
                  </span>
                )}
              </span>
            ),
          },
          { key: 'email', header: 'Email', render: (m) => m.email },
          {
            key: 'role',
            header: 'Role',
            render: (m) =>
              canWrite && m.id !== user?.id ? (
                <select
                  aria-label={`Role of ${m.email}`}
                  value={m.role}
                  disabled={changeRole.isPending}
                  onChange={(e) => setRole(m.id, e.target.value as StaffRole)}
                  className={selectClass}
                >
                  {STAFF_ROLES.map((role) => (
                    <option key={role} value={role}>
                      {STAFF_ROLE_NAMES[role]}
                    </option>
                  ))}
                </select>
              ) : (
                STAFF_ROLE_NAMES[m.role]
              ),
          },
          {
            key: 'remove',
            header: <span className="sr-only">Remove</span>,
            align: 'right',
            render: (m) =>
              canWrite && m.id !== user?.id ? (
                <Button variant="secondary" className="px-3 py-1" onClick={() => setRemoving(m)}>
                  Remove
                </Button>
              ) : null,
          },
        ]}
        rows={list.error ? [] : list.data}
        rowKey={(m) => m.id}
        loading={list.isPending}
        error={errorText(list.error, 'Error fetching staff')}
        noDataMessage="No staff found"
        onRefresh={() => list.refetch()}
        page={1}
        totalPages={1}
        onPageChange={() => undefined}
      />
      <InviteDialog open={inviting} onClose={() => setInviting(false)} />
      <ConfirmDialog
        open={removing !== null}
        title={removing ? STAFF_TEXT.removeTitle(removing.email) : ''}
        confirmLabel="Remove"
        variant="danger"
        pending={remove.isPending}
        error={remove.error}
        onConfirm={() =>
          removing &&
          remove.mutate(
            { params: { id: removing.id } },
            {
              onSuccess: (res) => {
                toast.success(res.message);
                setRemoving(null);
              },
            },
          )
        }
        onCancel={() => {
          remove.reset();
          setRemoving(null);
        }}
      >
        <p className="text-sm text-slate-600 dark:text-slate-300">{STAFF_TEXT.removeBody}</p>
      </ConfirmDialog>
    </PageLayout>
  );
}
