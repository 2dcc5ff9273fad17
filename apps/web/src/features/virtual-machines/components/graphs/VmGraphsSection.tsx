/**
 * What the VM page mounts: loads the graphs' chunk (uPlot and the charts) with the page, so no other page carries
 * it, and says so with a retry if that chunk cannot be fetched (never an endless spinner).
 */
import { useEffect, useState, type ComponentType } from 'react';
import { GRAPH_TEXT, TEXT } from '@portal/contract/messages';
import { Button } from '../../../../components/ui/Button.tsx';

type GraphsComponent = ComponentType<{ vmId: number }>;

/**
 * Asked for as soon as the details page's chunk runs, so the graphs' chunk loads while the page reads the VM's
 * details, not after (a retry asks again).
 */
let graphsModule: Promise<{ VmGraphs: GraphsComponent }> | null = null;
function loadGraphs(retry: boolean) {
  if (!graphsModule || retry) graphsModule = import('./VmGraphs.tsx');
  return graphsModule;
}
void loadGraphs(false).catch(() => {});

export function VmGraphsSection({ vmId }: { vmId: number }) {
  const [Graphs, setGraphs] = useState<GraphsComponent | null>(null);
  const [failed, setFailed] = useState(false);
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    let live = true;
    loadGraphs(attempt > 0).then(
      (m) => live && setGraphs(() => m.VmGraphs),
      (err: unknown) => {
        console.error(err);
        if (live) setFailed(true);
      },
    );
    return () => {
      live = false;
    };
  }, [attempt]);

  if (Graphs) return <Graphs vmId={vmId} />;
  return (
    <section
      aria-label={GRAPH_TEXT.title}
      className="rounded-lg border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 shadow-sm"
    >
      <h2 className="border-b border-slate-200 dark:border-slate-700 px-4 py-3 font-semibold text-slate-900 dark:text-slate-100">
        {GRAPH_TEXT.title}
      </h2>
      {failed ? (
        <div role="alert" className="p-6 text-center" data-graphs-state="error">
          <p className="text-sm text-slate-700 dark:text-slate-300">{GRAPH_TEXT.loadFailed}</p>
          <Button
            variant="secondary"
            className="mt-3"
            onClick={() => {
              setFailed(false);
              setAttempt((a) => a + 1);
            }}
          >
            {TEXT.tryAgain}
          </Button>
        </div>
      ) : (
        <p className="p-6 text-center text-sm text-slate-500 dark:text-slate-400" data-graphs-state="loading">
          {GRAPH_TEXT.loading}
        </p>
      )}
    </section>
  );
}
