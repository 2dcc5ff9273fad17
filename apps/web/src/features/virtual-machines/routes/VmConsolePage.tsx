/** /virtualMachineConsole/:id — a full-screen tab framing the VM's console; a non-numeric id closes the tab. */
import X from 'lucide-react/icons/x';
import { useEffect, useState } from 'react';
import { useParams } from 'react-router';
import { ERRORS, TEXT, withDetail } from '@portal/contract/messages';
import { consoleUrlSchema } from '@portal/contract/validation';
import { Button } from '../../../components/ui/Button.tsx';
import { ApiError, errorMessage } from '../../../lib/api.ts';
import { reportError } from '../../../lib/report-error.ts';
import { fetchConsoleUrl } from '../api/vms.ts';

export function VmConsolePage() {
  const { virtualMachineId } = useParams();
  const id = Number(virtualMachineId);
  const numeric = /^\d+$/.test(virtualMachineId ?? '') && id > 0;
  const [url, setUrl] = useState<string | null>(null);
  const [failed, setFailed] = useState(false);

  useEffect(() => {
    if (!numeric) {
      window.close();
      // A tab the portal did not open cannot be closed by script: say so instead of loading forever.
      setFailed(true);
      return;
    }
    let active = true;
    void (async () => {
      let consoleUrl: unknown;
      try {
        ({ consoleUrl } = await fetchConsoleUrl(id));
      } catch (err) {
        if (!active) return;
        // SPEC point 8: "Failed to fetch console URL: {detail}"; the screen keeps its one failure text.
        const message = withDetail(ERRORS.fetchConsole, errorMessage(err));
        console.error(message);
        // A refusal (no such VM, not running, no permission) is an answer; anything else is worth reporting.
        if (!(err instanceof ApiError) || err.status >= 500) reportError(new Error(message));
        setFailed(true);
        return;
      }
      if (!active) return;
      // A null or empty console result is an error (SPEC points 5 and 7).
      const parsed = consoleUrlSchema.safeParse(consoleUrl);
      if (!parsed.success) {
        console.error(ERRORS.invalidConsoleUrl);
        reportError(new Error(ERRORS.invalidConsoleUrl));
        setFailed(true);
        return;
      }
      setUrl(parsed.data);
    })();
    return () => {
      active = false;
    };
  }, [id, numeric]);

  return (
    <div className="fixed inset-0 flex flex-col bg-slate-950 text-slate-100">
      <div className="flex items-center justify-between px-4 py-2 text-sm">
        <span>Console</span>
        <button
          type="button"
          aria-label="Close console"
          onClick={() => window.close()}
          className="rounded p-1 hover:bg-slate-800"
        >
          <X className="h-5 w-5" />
        </button>
      </div>
      {failed ? (
        <div className="flex flex-1 flex-col items-center justify-center gap-4">
          <p role="alert">{TEXT.consoleFailed}</p>
          <Button variant="secondary" onClick={() => window.close()}>
            Close
          </Button>
        </div>
      ) : url ? (
        <iframe title="VM console" src={url} className="flex-1 border-0 bg-black" />
      ) : (
        <div className="flex flex-1 items-center justify-center">
          <p>{TEXT.consoleLoading}</p>
        </div>
      )}
    </div>
  );
}
