/** The live checklist under a new password. */
import Check from 'lucide-react/icons/check';
import X from 'lucide-react/icons/x';
import { CHECKLIST_LABELS, passwordChecklist } from '@portal/contract/validation';

export function PasswordChecklist({ password, confirm }: { password: string; confirm: string }) {
  const state = passwordChecklist(password, confirm);
  return (
    <ul className="grid grid-cols-1 gap-1 text-sm sm:grid-cols-2" aria-label="Password requirements">
      {(Object.keys(CHECKLIST_LABELS) as (keyof typeof CHECKLIST_LABELS)[]).map((key) => (
        <li
          key={key}
          className={`flex items-center gap-1.5 ${state[key] ? 'text-emerald-700 dark:text-emerald-300' : 'text-slate-500 dark:text-slate-400'}`}
          data-met={state[key]}
        >
          {state[key] ? <Check className="h-4 w-4" aria-hidden /> : <X className="h-4 w-4" aria-hidden />}
          {CHECKLIST_LABELS[key]}
        </li>
      ))}
    </ul>
  );
}
