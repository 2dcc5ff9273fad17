/** /team?id= — rename, members, the team's VMs; Edit Team; back to /teams. */
import { zodResolver } from '@hookform/resolvers/zod';
import { useEffect } from 'react';
import { useForm } from 'react-hook-form';
import { Navigate, useNavigate, useSearchParams } from 'react-router';
import { toast } from 'react-toastify';
import { z } from 'zod';
import { ERRORS, TEXT } from '@portal/contract/messages';
import { routes } from '@portal/contract/routes';
import { teamNameSchema } from '@portal/contract/validation';
import { Button } from '../../../components/ui/Button.tsx';
import { ErrorText } from '../../../components/ui/ErrorText.tsx';
import { LoadFailure, failureTitle } from '../../../components/ui/LoadFailure.tsx';
import { PageLayout } from '../../../components/ui/PageLayout.tsx';
import { TextField } from '../../../components/ui/TextField.tsx';
import { TEAM_AND_USER_READS } from '../../../lib/reads.ts';
import { useRouteMutation } from '../../../lib/route-query.ts';
import { useTeamDetails } from '../api/team-details.ts';
import { TeamMembersTable } from '../components/TeamMembersTable.tsx';
import { TeamVmsTable } from '../components/TeamVmsTable.tsx';
import { TeamQuota } from '../components/TeamQuota.tsx';

const renameSchema = z.object({ name: teamNameSchema });
type RenameForm = z.input<typeof renameSchema>;

export function TeamPage() {
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const teamId = Number(params.get('id'));
  const valid = Number.isInteger(teamId) && teamId > 0;
  const team = useTeamDetails(teamId, { page: 1, rowsPerPage: 5, search: '' }, valid);
  const rename = useRouteMutation(routes.teams.update, { invalidates: TEAM_AND_USER_READS });
  const form = useForm<RenameForm>({ resolver: zodResolver(renameSchema), defaultValues: { name: '' } });
  const loadedName = team.data?.teamName;
  useEffect(() => {
    if (loadedName !== undefined) form.reset({ name: loadedName });
  }, [loadedName, form]);

  if (!valid) return <Navigate to="/teams" replace />;
  // The server reports what the caller may do in this team (company administrators: everything).
  const canManage = team.data?.permissions.includes('team.manage') ?? false;

  const onSave = form.handleSubmit(({ name }) =>
    rename.mutateAsync({ body: { teamId, name } }).then(
      () => toast.success(TEXT.teamUpdated),
      // The error shows from rename.error.
      () => undefined,
    ),
  );

  return (
    <PageLayout
      title={loadedName ?? (team.error ? failureTitle(team.error) : 'Team')}
      secondaryTitle="Team details"
      onBack={() => navigate('/teams')}
      {...(canManage ? { action: { name: 'Edit Team', onClick: () => navigate(`/createEditTeam?id=${teamId}`) } } : {})}
    >
      {team.error ? (
        <LoadFailure
          error={team.error}
          notFound={TEXT.teamNotFound}
          prefix={ERRORS.fetchTeam}
          back={{ to: '/teams', label: 'Back to Teams' }}
          onRetry={() => void team.refetch()}
        />
      ) : (
        <div className="space-y-6">
          <form
            onSubmit={onSave}
            className="flex max-w-xl items-end gap-3 rounded-lg border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-4 shadow-sm"
            noValidate
          >
            <TextField<RenameForm>
              name="name"
              label="Team name"
              register={form.register}
              errors={form.formState.errors}
              className="flex-1"
              disabled={!canManage}
            />
            <Button type="submit" disabled={!canManage || form.formState.isSubmitting}>
              Save
            </Button>
          </form>
          <ErrorText error={rename.error} prefix={ERRORS.updateTeam} />
          <TeamQuota teamId={teamId} />
          <div className="grid gap-6 xl:grid-cols-2">
            <TeamMembersTable teamId={teamId} />
            <TeamVmsTable teamId={teamId} />
          </div>
        </div>
      )}
    </PageLayout>
  );
}
