/**
 * On /user, for company administrators: whether the user is a company administrator, and the button that grants
 * or revokes it behind a confirmation. The server keeps the rule (a company keeps one administrator); its
 * refusal shows in the dialog.
 */
import ShieldCheck from 'lucide-react/icons/shield-check';
import { useState } from 'react';
import { toast } from 'react-toastify';
import { ACTIVITY_TEXT } from '@portal/contract/activity';
import { routes } from '@portal/contract/routes';
import type { UserListItem } from '@portal/contract/teams';
import { Button } from '../../../components/ui/Button.tsx';
import { ConfirmDialog } from '../../../components/ui/ConfirmDialog.tsx';
import { useUserWrite } from '../api/users.ts';

export function CompanyAdminCard({
  user,
  isSelf,
}: {
  user: Pick<UserListItem, 'id' | 'name' | 'isCompanyAdmin'>;
  isSelf: boolean;
}) {
  const change = useUserWrite(routes.companyAdmin.set);
  const [confirming, setConfirming] = useState(false);
  const grant = !user.isCompanyAdmin;

  const confirm = () =>
    change.mutate(
      { params: { id: user.id }, body: { isCompanyAdmin: grant } },
      {
        onSuccess: ({ message }) => {
          toast.success(message);
          setConfirming(false);
        },
      },
    );
  const cancel = () => {
    change.reset();
    setConfirming(false);
  };

  return (
    <section
      aria-labelledby="company-admin-heading"
      className="flex max-w-3xl flex-wrap items-center gap-4 rounded-lg border border-slate-200 bg-white p-6 shadow-sm dark:border-slate-700 dark:bg-slate-900"
    >
      <ShieldCheck className="h-6 w-6 shrink-0 text-brand-600 dark:text-brand-300" aria-hidden />
      {/* flex-1 alone is a 0 basis: on a phone the text squeezed to one word per line beside the button. A basis
          of its own makes the button wrap below the text instead. */}
      <div className="min-w-0 flex-1 basis-64">
        <h2 id="company-admin-heading" className="font-semibold text-slate-900 dark:text-slate-100">
          {ACTIVITY_TEXT.companyAdmin}
        </h2>
        <p className="text-sm text-slate-700 dark:text-slate-300" data-testid="company-admin-status">
          {user.isCompanyAdmin ? ACTIVITY_TEXT.isCompanyAdmin(user.name) : ACTIVITY_TEXT.isNotCompanyAdmin(user.name)}
        </p>
        <p className="text-sm text-slate-500 dark:text-slate-400">{ACTIVITY_TEXT.companyAdminInfo}</p>
      </div>
      <Button
        variant={grant ? 'secondary' : 'danger'}
        onClick={() => {
          change.reset();
          setConfirming(true);
        }}
      >
        {grant ? ACTIVITY_TEXT.grantButton : ACTIVITY_TEXT.revokeButton}
      </Button>
      <ConfirmDialog
        open={confirming}
        title={grant ? ACTIVITY_TEXT.grantTitle : ACTIVITY_TEXT.revokeTitle}
        confirmLabel={grant ? ACTIVITY_TEXT.grantConfirm : ACTIVITY_TEXT.revokeConfirm}
        variant={grant ? 'primary' : 'danger'}
        pending={change.isPending}
        error={change.error}
        errorPrefix={ACTIVITY_TEXT.grantError}
        onConfirm={confirm}
        onCancel={cancel}
      >
        <p className="text-sm text-slate-700 dark:text-slate-300">
          {grant
            ? ACTIVITY_TEXT.grantBody(user.name)
            : isSelf
              ? ACTIVITY_TEXT.revokeSelfBody
              : ACTIVITY_TEXT.revokeBody(user.name)}
        </p>
      </ConfirmDialog>
    </section>
  );
}
