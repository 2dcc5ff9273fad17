/** The dashboard overview's texts (issue 25 item 5). */
export const OVERVIEW_TEXT = {
  machines: 'Machines',
  machinesCount: (n: number) => (n === 1 ? '1 machine' : `${n} machines`),
  spend: 'Spend this month',
  spendHours: (hours: string) => `${hours} machine hours so far`,
  spendUnpriced: 'Some machines are at a size without a price and are not counted.',
  activity: 'Recent activity',
  allActivity: 'View all activity',
  noActivity: 'No activity yet',
  firstRunTitle: 'Create your first machine',
  firstRunBody: 'You have no virtual machines yet. Pick an image and a size, and it is ready in a minute.',
  firstRunButton: 'Create your first machine',
  failed: 'Could not load the summary.',
} as const;

/** How many activity entries the dashboard shows (kept with the dashboard's prefetch, which asks for them early). */
export { RECENT_ACTIVITY } from '../api/dashboard-prefetch.ts';
