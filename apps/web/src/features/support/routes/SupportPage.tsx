/** /support — searchable FAQ (one answer open at a time) and the Get In Touch form. */
import { zodResolver } from '@hookform/resolvers/zod';
import ChevronDown from 'lucide-react/icons/chevron-down';
import Mail from 'lucide-react/icons/mail';
import Search from 'lucide-react/icons/search';
import { useId, useMemo, useRef, useState } from 'react';
import { useForm } from 'react-hook-form';
import type { z } from 'zod';
import { LIMITS } from '@portal/contract/constants';
import { TEXT } from '@portal/contract/messages';
import { supportMessageBody } from '@portal/contract/platform';
import { routes } from '@portal/contract/routes';
import { Button } from '../../../components/ui/Button.tsx';
import { ErrorText } from '../../../components/ui/ErrorText.tsx';
import { PageLayout } from '../../../components/ui/PageLayout.tsx';
import { useRouteMutation } from '../../../lib/route-query.ts';
import { FAQ } from '../components/faq.ts';

export function SupportPage() {
  const [search, setSearch] = useState('');
  const [open, setOpen] = useState<number | null>(null);
  const entries = useMemo(() => {
    const q = search.trim().toLowerCase();
    return FAQ.map((e, i) => ({ ...e, i })).filter(
      (e) => !q || e.question.toLowerCase().includes(q) || e.answer.toLowerCase().includes(q),
    );
  }, [search]);

  return (
    <PageLayout title="Support" secondaryTitle="Answers to common questions, and a direct line to our team">
      <div className="grid gap-6 xl:grid-cols-3">
        <section aria-label="Frequently asked questions" className="xl:col-span-2">
          {/* The questions are h3s: this heading keeps the outline in order (h1, h2, h3). */}
          <h2 className="sr-only">Frequently asked questions</h2>
          <label className="relative mb-4 block">
            <span className="sr-only">Search the FAQ</span>
            <Search className="pointer-events-none absolute left-3 top-2.5 h-4 w-4 text-slate-400" aria-hidden />
            <input
              type="search"
              value={search}
              onChange={(e) => setSearch(e.target.value)}
              placeholder="Search the FAQ..."
              className="w-full rounded-md border border-slate-300 dark:border-slate-600 py-2 pl-9 pr-3 text-sm focus:border-brand-500 focus:outline-none focus:ring-2 focus:ring-brand-500/30"
            />
          </label>
          <ul className="divide-y divide-slate-200 dark:divide-slate-700 rounded-lg border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 shadow-sm">
            {entries.length === 0 && (
              <li className="px-4 py-8 text-center text-sm text-slate-500 dark:text-slate-400">
                No answers match your search
              </li>
            )}
            {entries.map((e) => {
              const expanded = open === e.i;
              return (
                <li key={e.i}>
                  <h3>
                    <button
                      type="button"
                      aria-expanded={expanded}
                      aria-controls={`faq-${e.i}`}
                      onClick={() => setOpen(expanded ? null : e.i)}
                      className="flex w-full items-center justify-between gap-4 px-4 py-3 text-left text-sm font-medium text-slate-900 dark:text-slate-100 hover:bg-slate-50 dark:hover:bg-slate-800"
                    >
                      {e.question}
                      <ChevronDown
                        className={`h-4 w-4 shrink-0 text-slate-400 motion-safe:transition-transform ${expanded ? 'rotate-180' : ''}`}
                        aria-hidden
                      />
                    </button>
                  </h3>
                  {expanded && (
                    <p
                      id={`faq-${e.i}`}
                      role="region"
                      className="px-4 pb-4 text-sm leading-relaxed text-slate-600 dark:text-slate-300"
                    >
                      {e.answer}
                    </p>
                  )}
                </li>
              );
            })}
          </ul>
        </section>
        <GetInTouch />
      </div>
    </PageLayout>
  );
}

const supportMessageSchema = supportMessageBody;
type SupportMessageForm = z.input<typeof supportMessageSchema>;

function GetInTouch() {
  const id = useId();
  const [revealed, setRevealed] = useState(false);
  // After sending, the button reads "Message sent!" until the text changes; any edit resets it for good
  // (editing back to the sent text does not bring it back).
  const [sent, setSent] = useState(false);
  const edits = useRef(0);
  const send = useRouteMutation(routes.platform.sendSupportEmail);
  // Errors show until the next send, as before: no re-validation while typing.
  const form = useForm<SupportMessageForm, unknown, z.output<typeof supportMessageSchema>>({
    resolver: zodResolver(supportMessageSchema),
    defaultValues: { message: '' },
    reValidateMode: 'onSubmit',
  });

  // handleSubmit and register's onChange call these on events only, never during render.
  // eslint-disable-next-line react-hooks/refs
  const onSubmit = form.handleSubmit((body) => {
    const editsAtSend = edits.current;
    // Text edited while the message was on its way: that text has not been sent.
    send.mutate({ body }, { onSuccess: () => edits.current === editsAtSend && setSent(true) });
  });

  return (
    <section
      aria-label="Get In Touch"
      className="h-fit rounded-lg border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-5 shadow-sm"
    >
      <div className="flex items-center gap-3">
        <Mail className="h-5 w-5 text-brand-600 dark:text-brand-300" />
        <h2 className="font-semibold text-slate-900 dark:text-slate-100">Get In Touch</h2>
      </div>
      <p className="mt-2 text-sm text-slate-600 dark:text-slate-300">
        Could not find your answer? Write to our support team; we reply by email.
      </p>
      {!revealed ? (
        <Button className="mt-4 w-full" onClick={() => setRevealed(true)}>
          Get In Touch
        </Button>
      ) : (
        <form onSubmit={(e) => void onSubmit(e)} className="mt-4 space-y-3" noValidate>
          <label htmlFor={id} className="block text-sm font-medium text-slate-700 dark:text-slate-300">
            Message
          </label>
          <textarea
            id={id}
            rows={6}
            maxLength={LIMITS.supportMessage}
            // eslint-disable-next-line react-hooks/refs -- onChange runs on input events, not during render
            {...form.register('message', {
              onChange: () => {
                edits.current++;
                setSent(false);
              },
            })}
            className="block w-full rounded-md border border-slate-300 dark:border-slate-600 px-3 py-2 text-sm focus:border-brand-500 focus:outline-none focus:ring-2 focus:ring-brand-500/30"
            placeholder="Tell us what happened, and which VM it concerns."
          />
          <ErrorText error={form.formState.errors.message?.message ?? send.error} />
          <Button type="submit" className="w-full" disabled={sent || send.isPending}>
            {sent ? TEXT.messageSent : 'Send Message'}
          </Button>
        </form>
      )}
    </section>
  );
}
