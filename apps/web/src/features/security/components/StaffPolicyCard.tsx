/**
 * The reseller owner's switch (issue 26 item 2; docs/two-factor.md "Reseller staff policy"): require an authenticator
 * app or a passkey of every staff member. Shown on the reseller area's Security page; other staff see it read-only.
 */
import { toast } from 'react-toastify';
import { useState } from 'react';
import { RESELLER_POLICY_TEXT as S } from '@portal/contract/company-policy';
import { routes } from '@portal/contract/routes';
import { ConfirmDialog } from '../../../components/ui/ConfirmDialog.tsx';
import { useRouteMutation, useRouteQuery } from '../../../lib/route-query.ts';

export function StaffPolicyCard({ isOwner }: { isOwner: boolean }) {
  const policy = useRouteQuery(routes.resellerPolicy.get);
  const set = useRouteMutation(routes.resellerPolicy.set, { invalidates: [routes.resellerPolicy.get] });
  const [asking, setAsking] = useState(false);
  if (!policy.data) return null;
  const required = policy.data.requireStaffAuthenticator;
  const close = () => {
    setAsking(false);
    set.reset();
  };
  return (
    <section
      aria-labelledby="staff-policy-heading"
      className="rounded-lg border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-5 shadow-sm"
    >
      <h2 id="staff-policy-heading" className="font-semibold text-slate-900 dark:text-slate-100">
        {S.heading}
      </h2>
      <label className="mt-3 flex items-start gap-3 text-sm text-slate-700 dark:text-slate-300">
        <input
          type="checkbox"
          role="switch"
          checked={required}
          disabled={!isOwner}
          onChange={() => setAsking(true)}
          className="mt-1 h-4 w-4"
          aria-describedby="staff-policy-hint"
        />
        <span>
          <span className="font-medium text-slate-900 dark:text-slate-100">{S.requireLabel}</span>
          <span id="staff-policy-hint" className="block text-slate-600 dark:text-slate-400">
            {isOwner ? S.requireHint : S.ownerOnly}
          </span>
        </span>
      </label>
      <ConfirmDialog
        open={asking}
        title={required ? S.confirmOffTitle : S.confirmOnTitle}
        confirmLabel={required ? S.confirmOff : S.confirmOn}
        pending={set.isPending}
        error={set.error}
        onCancel={close}
        onConfirm={() =>
          set.mutate(
            { body: { requireStaffAuthenticator: !required } },
            {
              onSuccess: ({ message }) => {
                toast.success(message);
                close();
              },
            },
          )
        }
      >
        <p className="text-sm text-slate-700 dark:text-slate-300">{required ? S.confirmOffBody : S.confirmOnBody}</p>
      </ConfirmDialog>
    </section>
  );
}
