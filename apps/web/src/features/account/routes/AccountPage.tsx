/**
 * /account — the signed-in user's own account (issue 25 item 7; docs/account.md): their name, their password
 * (the current one required; every other session ends), their active sessions with "Sign out everywhere else",
 * and their preferences (theme, date format), kept on the server and applied at once. Links to Security and API
 * tokens, which keep their own pages.
 */
import { zodResolver } from '@hookform/resolvers/zod';
import ChevronRight from 'lucide-react/icons/chevron-right';
import { useId, useState, type ReactNode } from 'react';
import { FormProvider, useForm, useWatch } from 'react-hook-form';
import { Link } from 'react-router';
import { toast } from 'react-toastify';
import { z } from 'zod';
import {
  ACCOUNT_TEXT as T,
  DATE_FORMATS,
  THEME_LABELS,
  THEME_PREFERENCES,
  type AccountSession,
  type DateFormat,
  type Preferences,
  type ThemePreference,
} from '@portal/contract/account';
import { VALIDATION } from '@portal/contract/messages';
import { newPasswordSchema, passwordInputSchema, userEditFormSchema } from '@portal/contract/validation';
import { Button } from '../../../components/ui/Button.tsx';
import { ConfirmDialog } from '../../../components/ui/ConfirmDialog.tsx';
import { ErrorText } from '../../../components/ui/ErrorText.tsx';
import { PageLayout } from '../../../components/ui/PageLayout.tsx';
import { PasswordChecklist } from '../../../components/ui/PasswordChecklist.tsx';
import { Spinner } from '../../../components/ui/Spinner.tsx';
import { TextField } from '../../../components/ui/TextField.tsx';
import { useAuth } from '../../../lib/auth-context.tsx';
import { formatDateTime, setDateFormat, useDateFormat, type Revived } from '../../../lib/dates.ts';
import { setThemePreference, useTheme } from '../../../lib/theme.ts';
import {
  useAccountSessions,
  useChangePassword,
  useEditOwnName,
  useRevokeOtherSessions,
  useUpdatePreferences,
} from '../api/account.ts';

/** The moment the date-format choices are shown with (the issue's own example). */
const EXAMPLE = new Date(2026, 10, 26, 14, 5);

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

type NameForm = z.input<typeof userEditFormSchema>;

function Profile() {
  const { user, authed, setUser } = useAuth();
  const edit = useEditOwnName();
  const form = useForm<NameForm>({
    resolver: zodResolver(userEditFormSchema),
    defaultValues: { firstName: user?.firstName ?? '', lastName: user?.lastName ?? '' },
  });
  if (!user) return null;
  const onSubmit = form.handleSubmit((values) =>
    edit.mutate(
      { body: { id: user.id, firstName: values.firstName.trim(), lastName: values.lastName.trim() } },
      {
        onSuccess: ({ data }) => {
          toast.success('Saved');
          setUser({ ...user, firstName: data.firstName, lastName: data.lastName }, authed);
          form.reset({ firstName: data.firstName, lastName: data.lastName });
        },
      },
    ),
  );
  return (
    <Card title={T.profileHeading} id="account-profile-heading">
      <FormProvider {...form}>
        <form onSubmit={onSubmit} className="space-y-4" noValidate>
          <div className="grid gap-3 sm:grid-cols-2">
            <TextField<NameForm>
              name="firstName"
              label="First Name"
              autoComplete="given-name"
              required
              disabled={!!user.staffRole}
            />
            <TextField<NameForm>
              name="lastName"
              label="Last Name"
              autoComplete="family-name"
              required
              disabled={!!user.staffRole}
            />
          </div>
          <div className="space-y-1">
            <p className="font-medium text-slate-700 dark:text-slate-300">Email</p>
            <p data-testid="account-email" className="break-all">
              {user.email}
            </p>
          </div>
          <ErrorText error={edit.error} />
          {!user.staffRole && (
            <Button type="submit" disabled={edit.isPending || !form.formState.isDirty}>
              Save
            </Button>
          )}
        </form>
      </FormProvider>
    </Card>
  );
}

const passwordFormSchema = z
  .object({ currentPassword: passwordInputSchema, password: newPasswordSchema, confirmPassword: z.string() })
  .refine((v) => v.password === v.confirmPassword, {
    message: VALIDATION.passwordMismatch,
    path: ['confirmPassword'],
  });
type PasswordForm = z.input<typeof passwordFormSchema>;

function Password() {
  const change = useChangePassword();
  const form = useForm<PasswordForm>({
    resolver: zodResolver(passwordFormSchema),
    defaultValues: { currentPassword: '', password: '', confirmPassword: '' },
  });
  const [password, confirmPassword] = useWatch({ control: form.control, name: ['password', 'confirmPassword'] });
  const onSubmit = form.handleSubmit((values) =>
    change.mutate(
      { body: { currentPassword: values.currentPassword, password: values.password } },
      {
        onSuccess: ({ message }) => {
          toast.success(message);
          form.reset();
        },
      },
    ),
  );
  return (
    <Card title={T.passwordHeading} id="account-password-heading">
      <p>{T.passwordIntro}</p>
      <FormProvider {...form}>
        <form onSubmit={onSubmit} className="max-w-md space-y-4" noValidate>
          <TextField<PasswordForm>
            name="currentPassword"
            label={T.currentPassword}
            type="password"
            autoComplete="current-password"
            required
          />
          <TextField<PasswordForm>
            name="password"
            label={T.newPassword}
            type="password"
            autoComplete="new-password"
            required
          />
          <TextField<PasswordForm>
            name="confirmPassword"
            label={T.confirmPassword}
            type="password"
            autoComplete="new-password"
            required
          />
          <PasswordChecklist password={password ?? ''} confirm={confirmPassword ?? ''} />
          <ErrorText error={change.error} />
          <Button type="submit" disabled={change.isPending}>
            {T.changePassword}
          </Button>
        </form>
      </FormProvider>
    </Card>
  );
}

/** "Chrome on Linux" and the like from a user agent; the full string stays in the title. */
function describeAgent(agent: string | null): string {
  if (!agent) return 'Unknown device';
  const browser = /Edg\//.test(agent)
    ? 'Edge'
    : /Firefox\//.test(agent)
      ? 'Firefox'
      : /Chrome\/|Chromium\//.test(agent)
        ? 'Chrome'
        : /Safari\//.test(agent)
          ? 'Safari'
          : /curl\//.test(agent)
            ? 'curl'
            : null;
  const os = /Android/.test(agent)
    ? 'Android'
    : /iPhone|iPad|iOS/.test(agent)
      ? 'iOS'
      : /Windows/.test(agent)
        ? 'Windows'
        : /Mac OS X|Macintosh/.test(agent)
          ? 'macOS'
          : /Linux/.test(agent)
            ? 'Linux'
            : null;
  if (browser && os) return `${browser} on ${os}`;
  return browser ?? os ?? agent.slice(0, 60);
}

function SessionRow({ session }: { session: Revived<AccountSession> }) {
  useDateFormat();
  return (
    <li
      data-testid="account-session"
      data-current={session.current ? 'true' : undefined}
      className="flex flex-wrap items-start justify-between gap-2 py-3"
    >
      <div className="min-w-0 space-y-0.5">
        <p className="font-medium text-slate-900 dark:text-slate-100" title={session.userAgent ?? undefined}>
          {describeAgent(session.userAgent)}
          {session.ip ? <span className="font-normal text-slate-500 dark:text-slate-400"> · {session.ip}</span> : null}
        </p>
        <p className="text-slate-600 dark:text-slate-400">
          Signed in {formatDateTime(session.createdAt)} · last seen {formatDateTime(session.lastSeenAt)}
        </p>
      </div>
      {session.current && (
        <span className="rounded-full bg-green-100 px-2 py-0.5 text-xs font-medium text-green-800 dark:bg-green-900/40 dark:text-green-200">
          {T.thisSession}
        </span>
      )}
    </li>
  );
}

function Sessions() {
  const list = useAccountSessions();
  const revoke = useRevokeOtherSessions();
  const [confirming, setConfirming] = useState(false);
  const sessions = list.data ?? [];
  const others = sessions.filter((s) => !s.current).length;
  return (
    <Card title={T.sessionsHeading} id="account-sessions-heading">
      <p>{T.sessionsIntro}</p>
      {list.isPending ? (
        <Spinner />
      ) : list.error ? (
        <ErrorText error={list.error} />
      ) : (
        <ul className="divide-y divide-slate-200 dark:divide-slate-700">
          {sessions.map((s) => (
            <SessionRow key={s.id} session={s} />
          ))}
        </ul>
      )}
      {list.data && others === 0 && <p className="text-slate-500 dark:text-slate-400">{T.noOtherSessions}</p>}
      <Button type="button" variant="secondary" disabled={others === 0} onClick={() => setConfirming(true)}>
        {T.signOutOthers}
      </Button>
      <ConfirmDialog
        open={confirming}
        title={T.signOutOthers}
        confirmLabel={T.signOutOthers}
        variant="danger"
        pending={revoke.isPending}
        error={revoke.error}
        onCancel={() => {
          setConfirming(false);
          revoke.reset();
        }}
        onConfirm={() =>
          revoke.mutate(undefined, {
            onSuccess: ({ message }) => {
              toast.success(message);
              setConfirming(false);
            },
          })
        }
      >
        <p>{T.signOutOthersConfirm}</p>
      </ConfirmDialog>
    </Card>
  );
}

const DATE_FORMAT_NAMES: Record<DateFormat, string> = { 'day-month': 'Day month year', iso: 'ISO', us: 'US' };

function Choice<V extends string>({
  legend,
  name,
  value,
  options,
  onChange,
}: {
  legend: string;
  name: string;
  value: V;
  options: readonly { value: V; label: string; hint?: string }[];
  onChange: (v: V) => void;
}) {
  const id = useId();
  return (
    <fieldset className="space-y-2">
      <legend className="font-medium text-slate-700 dark:text-slate-300">{legend}</legend>
      <div className="flex flex-wrap gap-2">
        {options.map((o) => (
          <label
            key={o.value}
            htmlFor={`${id}-${o.value}`}
            className={`flex min-w-0 cursor-pointer items-center gap-2 rounded-md border px-3 py-2 ${
              value === o.value
                ? 'border-brand-500 bg-brand-50 dark:bg-slate-800'
                : 'border-slate-300 dark:border-slate-600'
            }`}
          >
            <input
              id={`${id}-${o.value}`}
              type="radio"
              name={name}
              value={o.value}
              checked={value === o.value}
              onChange={() => onChange(o.value)}
              className="accent-brand-600"
            />
            <span>
              {o.label}
              {o.hint && <span className="block text-xs text-slate-600 dark:text-slate-300">{o.hint}</span>}
            </span>
          </label>
        ))}
      </div>
    </fieldset>
  );
}

function PreferencesCard() {
  const { user, authed, setUser } = useAuth();
  const { preference } = useTheme();
  const dateFormat = useDateFormat();
  const save = useUpdatePreferences();
  // Applied at once, then kept on the server (and on the signed-in user, so a later check does not undo it).
  function choose(patch: Partial<Preferences>) {
    if (patch.theme) setThemePreference(patch.theme);
    if (patch.dateFormat) setDateFormat(patch.dateFormat);
    save.mutate(
      { body: patch },
      {
        onSuccess: ({ message, data }) => {
          toast.success(message);
          if (user) setUser({ ...user, preferences: data }, authed);
        },
      },
    );
  }
  return (
    <Card title={T.preferencesHeading} id="account-preferences-heading">
      <Choice<ThemePreference>
        legend={T.themeLabel}
        name="theme"
        value={preference}
        options={THEME_PREFERENCES.map((t) => ({ value: t, label: THEME_LABELS[t] }))}
        onChange={(theme) => choose({ theme })}
      />
      <Choice<DateFormat>
        legend={T.dateFormatLabel}
        name="dateFormat"
        value={dateFormat}
        options={DATE_FORMATS.map((f) => ({
          value: f,
          label: DATE_FORMAT_NAMES[f],
          hint: formatDateTime(EXAMPLE, { format: f }),
        }))}
        onChange={(f) => choose({ dateFormat: f })}
      />
      <ErrorText error={save.error} />
    </Card>
  );
}

function Links() {
  const { user } = useAuth();
  const links = [
    { to: '/security', label: T.securityLink },
    ...(user?.staffRole ? [] : [{ to: '/apiTokens', label: T.apiTokensLink }]),
  ];
  return (
    <Card title={T.securityHeading} id="account-links-heading">
      <ul className="divide-y divide-slate-200 dark:divide-slate-700">
        {links.map((l) => (
          <li key={l.to}>
            <Link
              to={l.to}
              className="flex items-center justify-between py-2 font-medium text-brand-700 hover:underline dark:text-brand-300"
            >
              {l.label}
              <ChevronRight className="h-4 w-4" aria-hidden />
            </Link>
          </li>
        ))}
      </ul>
    </Card>
  );
}

export function AccountPage() {
  return (
    <PageLayout title={T.pageTitle}>
      <div className="mx-auto grid max-w-5xl gap-4 lg:grid-cols-2">
        <div className="space-y-4">
          <Profile />
          <PreferencesCard />
          <Links />
        </div>
        <div className="space-y-4">
          <Password />
          <Sessions />
        </div>
      </div>
    </PageLayout>
  );
}
