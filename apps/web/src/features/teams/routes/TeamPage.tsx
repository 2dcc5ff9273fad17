/** /team?id= — rename, members, the team's VMs; Edit Team; back to /teams. */
import { zodResolver } from '@hookform/resolvers/zod';
import { useEffect, useState } from 'react';
import { useForm } from 'react-hook-form';
import { Navigate, useNavigate, useSearchParams } from 'react-router';
import { toast } from 'react-toastify';
import { z } from 'zod';
import { ERRORS, withDetail } from '@portal/contract/messages';
import { teamNameSchema } from '@portal/contract/validation';
import { Button } from '../../../components/ui/Button.tsx';
import { PageLayout } from '../../../components/ui/PageLayout.tsx';
import { TextField } from '../../../components/ui/TextField.tsx';
import { errorMessage } from '../../../lib/api.ts';
import { useTeamDetails } from '../api/team-details.ts';
import { useRenameTeam } from '../api/team-mutations.ts';
import { TeamMembersTable } from '../components/TeamMembersTable.tsx';
import { TeamVmsTable } from '../components/TeamVmsTable.tsx';

const renameSchema = z.object({ name: teamNameSchema });
type RenameForm = z.input<typeof renameSchema>;

export function TeamPage() {
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const teamId = Number(params.get('id'));
  const valid = Number.isInteger(teamId) && teamId > 0;
  const team = useTeamDetails(teamId, { page: 1, rowsPerPage: 5, search: '' }, valid);
  const rename = useRenameTeam();
  const [error, setError] = useState<string | null>(null);
  const form = useForm<RenameForm>({ resolver: zodResolver(renameSchema), defaultValues: { name: '' } });
  const loadedName = team.data?.teamName;
  useEffect(() => {
    if (loadedName !== undefined) form.reset({ name: loadedName });
  }, [loadedName, form]);

  if (!valid) return <Navigate to="/teams" replace />;
  const canManage = team.data ? team.data.myRoleId === null || team.data.myRoleId === 1 : false;

  const onSave = form.handleSubmit(async ({ name }) => {
    setError(null);
    try {
      await rename.mutateAsync({ teamId, name });
      toast.success('Team updated');
    } catch (err) {
      setError(withDetail(ERRORS.updateTeam, errorMessage(err)));
    }
  });

  return (
    <PageLayout
      title={loadedName ?? 'Team'}
      secondaryTitle="Team details"
      onBack={() => navigate('/teams')}
      {...(canManage ? { action: { name: 'Edit Team', onClick: () => navigate(`/createEditTeam?id=${teamId}`) } } : {})}
    >
      {team.error ? (
        <p role="alert" className="text-sm text-red-600">
          {withDetail(ERRORS.fetchTeam, errorMessage(team.error))}
        </p>
      ) : (
        <div className="space-y-6">
          <form onSubmit={onSave} className="flex max-w-xl items-end gap-3 rounded-lg border border-slate-200 bg-white p-4 shadow-sm" noValidate>
            <TextField<RenameForm> name="name" label="Team name" register={form.register} errors={form.formState.errors} className="flex-1" disabled={!canManage} />
            <Button type="submit" disabled={!canManage || form.formState.isSubmitting}>
              Save
            </Button>
          </form>
          {error && (
            <p role="alert" className="text-sm text-red-600">
              {error}
            </p>
          )}
          <div className="grid gap-6 xl:grid-cols-2">
            <TeamMembersTable teamId={teamId} />
            <TeamVmsTable teamId={teamId} />
          </div>
        </div>
      )}
    </PageLayout>
  );
}
