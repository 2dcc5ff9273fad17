/**
 * A choice of one among cards (the create form's images and sizes, issue 25 item 3): native radio buttons named by
 * `label`, so the group is one tab stop, arrow keys move and choose, and a disabled card is skipped. Each card's
 * accessible name is its title; the rest of the card (and why it cannot be chosen) describes it.
 */
import { useId, type ReactNode } from 'react';

export interface RadioCard {
  value: string;
  title: string;
  /** Shown under the title (what it is, its price). */
  body?: ReactNode;
  /** Decoration before the title (hidden from assistive technology: the title says it). */
  badge?: ReactNode;
  /** Why it cannot be chosen; the card is disabled when set. */
  disabledReason?: string | null | undefined;
}

export function RadioCards({
  label,
  cards,
  value,
  onChange,
  disabled = false,
  error,
  hint,
  placeholder,
  columns = 'sm:grid-cols-2 lg:grid-cols-3',
}: {
  label: string;
  cards: RadioCard[];
  value: string;
  onChange: (value: string) => void;
  disabled?: boolean;
  error?: string | null | undefined;
  /** Shown under the group when there is no error (e.g. why the list is empty). */
  hint?: string | null | undefined;
  /** Shown in place of the cards while there are none (nothing chosen above yet, loading). */
  placeholder?: string | null | undefined;
  columns?: string;
}) {
  const id = useId();
  const message = error ?? hint;
  return (
    <div className="space-y-2">
      <div id={`${id}-label`} className="text-sm font-medium text-slate-700 dark:text-slate-300">
        {label}
      </div>
      {cards.length === 0 && placeholder ? (
        <p className="rounded-md border border-dashed border-slate-300 px-3 py-4 text-sm text-slate-600 dark:border-slate-600 dark:text-slate-300">
          {placeholder}
        </p>
      ) : (
        cards.length > 0 && (
          <div
            role="radiogroup"
            aria-labelledby={`${id}-label`}
            aria-describedby={message ? `${id}-message` : undefined}
            aria-invalid={error ? true : undefined}
            className={`grid gap-3 ${columns}`}
          >
            {cards.map((card, i) => {
              const cardId = `${id}-${i}`;
              const off = disabled || !!card.disabledReason;
              return (
                <label
                  key={card.value}
                  data-card={card.value}
                  className={`relative flex min-w-0 flex-col gap-1 rounded-lg border p-3 text-sm transition-colors has-[:focus-visible]:ring-2 has-[:focus-visible]:ring-brand-500 has-[:focus-visible]:ring-offset-1 dark:has-[:focus-visible]:ring-offset-slate-900 ${
                    off
                      ? 'cursor-not-allowed border-dashed border-slate-300 bg-slate-50 dark:border-slate-600 dark:bg-slate-800/60'
                      : 'cursor-pointer border-slate-300 bg-white hover:border-brand-500 has-[:checked]:border-brand-600 has-[:checked]:bg-brand-50 has-[:checked]:ring-1 has-[:checked]:ring-brand-600 dark:border-slate-600 dark:bg-slate-900 dark:hover:border-brand-300 dark:has-[:checked]:border-brand-300 dark:has-[:checked]:bg-slate-800 dark:has-[:checked]:ring-brand-300'
                  }`}
                >
                  <input
                    type="radio"
                    className="sr-only"
                    name={`${id}-radio`}
                    value={card.value}
                    checked={value === card.value}
                    disabled={off}
                    onChange={() => onChange(card.value)}
                    aria-labelledby={`${cardId}-title`}
                    aria-describedby={`${cardId}-body`}
                  />
                  <span className="flex min-w-0 items-center gap-2">
                    {card.badge}
                    <span
                      id={`${cardId}-title`}
                      className={`min-w-0 break-words font-semibold ${off ? 'text-slate-600 dark:text-slate-300' : 'text-slate-900 dark:text-slate-100'}`}
                    >
                      {card.title}
                    </span>
                  </span>
                  <span id={`${cardId}-body`} className="min-w-0 space-y-1">
                    {card.body}
                    {card.disabledReason && (
                      <span className="block text-xs font-medium text-amber-800 dark:text-amber-200">
                        {card.disabledReason}
                      </span>
                    )}
                  </span>
                </label>
              );
            })}
          </div>
        )
      )}
      {message && (
        <p
          id={`${id}-message`}
          role={error ? undefined : 'status'}
          className={`text-sm ${error ? 'text-red-600 dark:text-red-400' : 'text-amber-800 dark:text-amber-200'}`}
        >
          {message}
        </p>
      )}
    </div>
  );
}
