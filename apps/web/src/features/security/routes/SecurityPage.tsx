/**
 * /security — the signed-in user's two-factor authentication (issue 26 item 1; docs/two-factor.md): set up an
 * authenticator app (QR code and key, confirmed with a current code), the recovery codes shown once, new recovery
 * codes, and removing the app (a current code or the password). Without an app, sign-in mails a code as always.
 */
import ShieldCheck from 'lucide-react/icons/shield-check';
import { useState, type FormEvent, type ReactNode } from 'react';
import { toast } from 'react-toastify';
import { COMPANY_POLICY_TEXT as P, RESELLER_POLICY_TEXT as S } from '@portal/contract/company-policy';
import { TWO_FACTOR_TEXT as T } from '@portal/contract/two-factor';
import { Button } from '../../../components/ui/Button.tsx';
import { ConfirmDialog } from '../../../components/ui/ConfirmDialog.tsx';
import { ErrorText } from '../../../components/ui/ErrorText.tsx';
import { PageLayout } from '../../../components/ui/PageLayout.tsx';
import { TextField } from '../../../components/ui/TextField.tsx';
import { useAuth } from '../../../lib/auth-context.tsx';
import { useAuthCheck } from '../../../lib/auth-check.ts';
import {
  useCompanyPolicy,
  useConfirmTwoFactor,
  useRegenerateRecoveryCodes,
  useRemoveTwoFactor,
  useSetCompanyPolicy,
  useStartTwoFactor,
  useTwoFactorStatus,
} from '../api/two-factor.ts';
import { PasskeysCard } from '../components/PasskeysCard.tsx';
import { StaffPolicyCard } from '../components/StaffPolicyCard.tsx';

type CodeForm = { code: string; password: string };

function Card({ title, id, children }: { title: string; id: string; children: ReactNode }) {
  return (
    <section
      aria-labelledby={id}
      className="rounded-lg border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-5 shadow-sm"
    >
      <h2 id={id} className="font-semibold text-slate-900 dark:text-slate-100">
        {title}
      </h2>
      <div className="mt-3 space-y-4 text-sm text-slate-700 dark:text-slate-300">{children}</div>
    </section>
  );
}

/** A code field: digits only on phones' keyboards, the browser's one-time-code autofill. */
function CodeField({
  value,
  onChange,
  label = T.codeLabel,
}: {
  value: string;
  onChange: (v: string) => void;
  label?: string;
}) {
  return (
    <TextField<CodeForm>
      name="code"
      label={label}
      value={value}
      onChange={(e) => onChange(e.target.value)}
      inputMode="numeric"
      autoComplete="one-time-code"
      placeholder="123456"
      maxLength={6}
      className="max-w-xs"
    />
  );
}

function RecoveryCodes({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  return (
    <Card title={T.recoveryHeading} id="recovery-codes-heading">
      <p>{T.recoveryBody}</p>
      <ul
        data-testid="recovery-codes"
        className="grid max-w-md grid-cols-2 gap-2 rounded-md bg-slate-50 dark:bg-slate-800 p-3 font-mono text-sm"
      >
        {codes.map((c) => (
          <li key={c}>{c}</li>
        ))}
      </ul>
      <Button type="button" onClick={onDone}>
        {T.done}
      </Button>
    </Card>
  );
}

/** Shows new recovery codes (they outlive the section that made them: turning the app on changes the page). */
type OnCodes = (codes: string[]) => void;

function SetUp({ onCodes }: { onCodes: OnCodes }) {
  const start = useStartTwoFactor();
  const confirm = useConfirmTwoFactor();
  const [code, setCode] = useState('');
  const started = start.data?.data;

  function onConfirm(e: FormEvent) {
    e.preventDefault();
    confirm.mutate(
      { body: { code } },
      {
        onSuccess: ({ message, data }) => {
          toast.success(message);
          onCodes(data.recoveryCodes);
          start.reset();
          setCode('');
        },
      },
    );
  }

  return (
    <Card title={T.heading} id="two-factor-heading">
      <p>{T.intro}</p>
      <p>{T.disabled}</p>
      {!started ? (
        <>
          <ErrorText error={start.error} />
          <Button type="button" onClick={() => start.mutate({ body: {} })} disabled={start.isPending}>
            {T.start}
          </Button>
        </>
      ) : (
        <form onSubmit={onConfirm} className="space-y-4" noValidate>
          <p>{T.scan}</p>
          <img
            src={started.qrCode}
            alt="QR code for your authenticator app"
            width={192}
            height={192}
            className="rounded-md border border-slate-200 bg-white p-2"
          />
          <p>
            <span className="font-medium">{T.secretLabel}: </span>
            <code data-testid="totp-secret" className="break-all font-mono text-sm">
              {started.secret}
            </code>
          </p>
          <CodeField value={code} onChange={setCode} />
          <ErrorText error={confirm.error} />
          <div className="flex flex-wrap gap-2">
            <Button type="submit" disabled={confirm.isPending}>
              {T.confirm}
            </Button>
            <Button
              type="button"
              variant="secondary"
              onClick={() => {
                start.reset();
                confirm.reset();
                setCode('');
              }}
            >
              {T.cancel}
            </Button>
          </div>
        </form>
      )}
    </Card>
  );
}

function Enabled({ left, onCodes, required }: { left: number; onCodes: OnCodes; required: boolean }) {
  const regenerate = useRegenerateRecoveryCodes();
  const remove = useRemoveTwoFactor();
  const [regenCode, setRegenCode] = useState('');
  const [removeCode, setRemoveCode] = useState('');
  const [password, setPassword] = useState('');

  function onRegenerate(e: FormEvent) {
    e.preventDefault();
    regenerate.mutate(
      { body: { code: regenCode } },
      {
        onSuccess: ({ message, data }) => {
          toast.success(message);
          setRegenCode('');
          onCodes(data.recoveryCodes);
        },
      },
    );
  }
  function onRemove(e: FormEvent) {
    e.preventDefault();
    remove.mutate(
      { body: { ...(removeCode ? { code: removeCode } : {}), ...(password ? { password } : {}) } },
      { onSuccess: ({ message }) => toast.success(message) },
    );
  }

  return (
    <>
      <Card title={T.heading} id="two-factor-heading">
        <p className="flex items-center gap-2">
          <ShieldCheck className="h-5 w-5 text-green-600" aria-hidden />
          {T.enabled}
        </p>
        <p data-testid="recovery-left">{T.recoveryLeft(left)}</p>
      </Card>
      <Card title={T.regenerate} id="regenerate-heading">
        <form onSubmit={onRegenerate} className="space-y-4" noValidate>
          <p>{T.regenerateHint}</p>
          <CodeField value={regenCode} onChange={setRegenCode} />
          <ErrorText error={regenerate.error} />
          <Button type="submit" disabled={regenerate.isPending}>
            {T.regenerate}
          </Button>
        </form>
      </Card>
      <Card title={T.remove} id="remove-heading">
        {required ? (
          <p>{P.cannotRemove}</p>
        ) : (
          <form onSubmit={onRemove} className="space-y-4" noValidate>
            <p>{T.removeHint}</p>
            <CodeField value={removeCode} onChange={setRemoveCode} />
            <TextField<CodeForm>
              name="password"
              type="password"
              label={T.passwordLabel}
              value={password}
              onChange={(e) => setPassword(e.target.value)}
              autoComplete="current-password"
              className="max-w-xs"
            />
            <ErrorText error={remove.error} />
            <Button type="submit" variant="danger" disabled={remove.isPending}>
              {T.remove}
            </Button>
          </form>
        )}
      </Card>
    </>
  );
}

/** A company administrator's switch: require an authenticator app of every user (docs/two-factor.md). */
function CompanyPolicyCard({ required }: { required: boolean }) {
  const set = useSetCompanyPolicy();
  const [asking, setAsking] = useState(false);
  const close = () => {
    setAsking(false);
    set.reset();
  };
  return (
    <Card title={P.heading} id="company-policy-heading">
      <label className="flex items-start gap-3">
        <input
          type="checkbox"
          role="switch"
          checked={required}
          onChange={() => setAsking(true)}
          className="mt-1 h-4 w-4"
          aria-describedby="company-policy-hint"
        />
        <span>
          <span className="font-medium text-slate-900 dark:text-slate-100">{P.requireLabel}</span>
          <span id="company-policy-hint" className="block text-slate-600 dark:text-slate-400">
            {P.requireHint}
          </span>
        </span>
      </label>
      <ConfirmDialog
        open={asking}
        title={required ? P.confirmOffTitle : P.confirmOnTitle}
        confirmLabel={required ? P.confirmOff : P.confirmOn}
        pending={set.isPending}
        error={set.error}
        onCancel={close}
        onConfirm={() =>
          set.mutate(
            { body: { requireAuthenticator: !required } },
            {
              onSuccess: ({ message }) => {
                toast.success(message);
                close();
              },
            },
          )
        }
      >
        <p className="text-sm text-slate-700 dark:text-slate-300">{required ? P.confirmOffBody : P.confirmOnBody}</p>
      </ConfirmDialog>
    </Card>
  );
}

export function SecurityPage() {
  const status = useTwoFactorStatus();
  const policy = useCompanyPolicy();
  const { user } = useAuth();
  const [codes, setCodes] = useState<string[] | null>(null);
  const required = policy.data?.requireAuthenticator === true;
  // Held by a policy (the company's, or the reseller's for staff): the auth check says so (docs/two-factor.md).
  const check = useAuthCheck();
  const held = check.data?.authed === true && check.data.mustSetUpTwoFactor === true;
  return (
    <PageLayout title={T.pageTitle} secondaryTitle={T.heading}>
      <div className="max-w-3xl space-y-6">
        {(required || held) && status.data && !status.data.enabled && !codes && (
          <p
            role="alert"
            className="rounded-md border border-amber-300 bg-amber-50 dark:border-amber-700 dark:bg-amber-950/50 px-4 py-3 text-sm text-amber-900 dark:text-amber-200"
          >
            {/* Staff are held by their reseller's policy: its own words (docs/two-factor.md). */}
            {user?.staffRole ? S.setUpRequired : P.setUpRequired}
          </p>
        )}
        {codes ? (
          <RecoveryCodes codes={codes} onDone={() => setCodes(null)} />
        ) : status.isPending ? (
          <p className="text-sm text-slate-500">Loading…</p>
        ) : status.error ? (
          <ErrorText error={status.error} />
        ) : status.data.enabled ? (
          <Enabled left={status.data.recoveryCodesLeft} onCodes={setCodes} required={required} />
        ) : (
          <SetUp onCodes={setCodes} />
        )}
        {status.data && !codes && <PasskeysCard withApp={status.data.enabled} />}
        {user?.isCompanyAdmin && policy.data && !codes && <CompanyPolicyCard required={required} />}
        {user?.staffRole && !codes && <StaffPolicyCard isOwner={user.staffRole === 'owner'} />}
      </div>
    </PageLayout>
  );
}
