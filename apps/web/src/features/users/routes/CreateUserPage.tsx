/** /createUser — "Add User": email, teams (filtered multi-select), role with its info, Send Invite Email. */
import { zodResolver } from '@hookform/resolvers/zod';
import { keepPreviousData } from '@tanstack/react-query';
import { useState } from 'react';
import { Controller, useForm, useWatch } from 'react-hook-form';
import { toast } from 'react-toastify';
import type { z } from 'zod';
import { DROPDOWN_MAX_HEIGHT_PX, PAGE_SIZE, SEARCH_DEBOUNCE_MS } from '@portal/contract/constants';
import { ERRORS, TEXT } from '@portal/contract/messages';
import { routes } from '@portal/contract/routes';
import { addUserFormSchema } from '@portal/contract/validation';
import { RolesFetchError } from '../../../components/RolesFetchError.tsx';
import { Button } from '../../../components/ui/Button.tsx';
import { ErrorText, errorText } from '../../../components/ui/ErrorText.tsx';
import { PageLayout } from '../../../components/ui/PageLayout.tsx';
import { TextField } from '../../../components/ui/TextField.tsx';
import { isAdminRole, useRoles } from '../../../lib/roles.ts';
import { useRouteQuery } from '../../../lib/route-query.ts';
import { useBack } from '../../../lib/use-back.ts';
import { useDebounced } from '../../../lib/use-debounced.ts';
import { useUserWrite } from '../api/users.ts';

type AddUserForm = z.input<typeof addUserFormSchema>;

export function CreateUserPage() {
  // Opened directly (a bookmark, a new tab), back is the users list, never out of the portal.
  const back = useBack('/users');
  const invite = useUserWrite(routes.users.create);
  const roles = useRoles();
  const [filter, setFilter] = useState('');
  const search = useDebounced(filter.trim(), SEARCH_DEBOUNCE_MS);
  const teams = useRouteQuery(
    routes.teams.list,
    { query: { page: 1, rowsPerPage: PAGE_SIZE.addUserTeams, search } },
    { placeholderData: keepPreviousData },
  );
  const [picked, setPicked] = useState<Map<number, string>>(new Map());
  const [done, setDone] = useState<string | null>(null);
  const form = useForm<AddUserForm>({
    resolver: zodResolver(addUserFormSchema),
    defaultValues: { email: '', teamIds: [] },
  });
  const roleId = useWatch({ control: form.control, name: 'roleId' });
  // SPEC point 6: the dropdown offers every role except those named Admin.
  const assignable = (roles.data ?? []).filter((r) => !isAdminRole(r));
  const role = assignable.find((r) => r.id === roleId);

  const toggle = (id: number, name: string) => {
    const next = new Map(picked);
    if (next.has(id)) next.delete(id);
    else next.set(id, name);
    setPicked(next);
    form.setValue('teamIds', [...next.keys()]);
  };

  const onSubmit = form.handleSubmit((values) =>
    invite.mutateAsync({ body: { email: values.email, roleId: values.roleId, teamIds: values.teamIds } }).then(
      ({ data: created }) => {
        const text = TEXT.completedCreatingUser(created.email);
        setDone(text);
        toast.success(text);
        setTimeout(back, 1500);
      },
      // The error shows from invite.error.
      () => undefined,
    ),
  );

  return (
    <PageLayout title="Add User" secondaryTitle="Invite someone to your company" onBack={back}>
      <form
        onSubmit={onSubmit}
        className="max-w-xl space-y-5 rounded-lg border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-6 shadow-sm"
        noValidate
      >
        <TextField<AddUserForm>
          name="email"
          label="Email"
          type="email"
          required
          register={form.register}
          errors={form.formState.errors}
          placeholder="colleague@company.com"
        />

        <fieldset className="space-y-2">
          <legend className="text-sm font-medium text-slate-700 dark:text-slate-300">Teams</legend>
          {picked.size > 0 && (
            <div className="flex flex-wrap gap-2">
              {[...picked].map(([id, name]) => (
                <button
                  key={id}
                  type="button"
                  onClick={() => toggle(id, name)}
                  className="rounded-full bg-brand-50 dark:bg-slate-800 px-3 py-1 text-sm text-brand-700 dark:text-brand-300 hover:bg-brand-100 dark:hover:bg-slate-700"
                  aria-label={`Remove ${name}`}
                >
                  {name} ×
                </button>
              ))}
            </div>
          )}
          <input
            type="search"
            value={filter}
            onChange={(e) => setFilter(e.target.value)}
            placeholder="Filter teams..."
            aria-label="Filter teams"
            className="w-full rounded-md border border-slate-300 dark:border-slate-600 px-3 py-2 text-sm"
          />
          <ul
            className="divide-y divide-slate-100 dark:divide-slate-800 overflow-y-auto rounded-md border border-slate-200 dark:border-slate-700"
            style={{ maxHeight: DROPDOWN_MAX_HEIGHT_PX }}
          >
            {teams.data?.data.length === 0 && (
              <li className="px-3 py-2 text-sm text-slate-500 dark:text-slate-400">{TEXT.noTeams}</li>
            )}
            {teams.error && (
              <li className="px-3 py-2 text-sm text-red-600 dark:text-red-400">
                {errorText(teams.error, ERRORS.fetchTeams)}
              </li>
            )}
            {teams.data?.data.map((t) => (
              <li key={t.id}>
                <label className="flex cursor-pointer items-center gap-2 px-3 py-2 text-sm hover:bg-slate-50 dark:hover:bg-slate-800">
                  <input type="checkbox" checked={picked.has(t.id)} onChange={() => toggle(t.id, t.name)} />
                  {t.name}
                </label>
              </li>
            ))}
          </ul>
        </fieldset>

        <div className="space-y-1">
          <div className="flex items-baseline gap-0.5">
            <label htmlFor="invite-role" className="text-sm font-medium text-slate-700 dark:text-slate-300">
              Role
            </label>
            <span className="text-sm text-red-600 dark:text-red-400" aria-hidden>
              *
            </span>
          </div>
          <Controller
            control={form.control}
            name="roleId"
            render={({ field, fieldState }) => (
              <>
                <select
                  id="invite-role"
                  value={field.value ?? ''}
                  onChange={(e) => field.onChange(e.target.value ? Number(e.target.value) : undefined)}
                  className="block w-full rounded-md border border-slate-300 dark:border-slate-600 px-3 py-2 text-sm"
                >
                  <option value="">Select a role</option>
                  {assignable.map((r) => (
                    <option key={r.id} value={r.id}>
                      {r.name}
                    </option>
                  ))}
                </select>
                {fieldState.error?.message && (
                  <p className="text-sm text-red-600 dark:text-red-400">{fieldState.error.message}</p>
                )}
              </>
            )}
          />
          <RolesFetchError error={roles.error} />
          {role && <p className="text-sm text-slate-500 dark:text-slate-400">{role.info}</p>}
        </div>

        <ErrorText error={invite.error} prefix={ERRORS.createUsers} />
        {done && (
          <p role="status" className="text-sm font-medium text-emerald-700 dark:text-emerald-300">
            {done}
          </p>
        )}
        <Button type="submit" disabled={form.formState.isSubmitting || done !== null}>
          Send Invite Email
        </Button>
      </form>
    </PageLayout>
  );
}
