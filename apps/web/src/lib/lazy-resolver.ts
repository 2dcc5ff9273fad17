/**
 * A react-hook-form resolver whose schema loads when it is first needed (issue #12, first-load weight): the
 * sign-in screen's validation pulls in zod, which its first paint does not need. `preload` starts the load
 * early (on the form's first focus), so validation is ready before the first submit; a failed load is retried
 * on the next call.
 */
import type { FieldValues, Resolver } from 'react-hook-form';

export function lazyResolver<Input extends FieldValues, Context, Output>(
  load: () => Promise<Resolver<Input, Context, Output>>,
): { resolver: Resolver<Input, Context, Output>; preload: () => Promise<Resolver<Input, Context, Output>> } {
  let loading: Promise<Resolver<Input, Context, Output>> | undefined;
  const preload = () => {
    loading ??= load().catch((err: unknown) => {
      loading = undefined;
      throw err;
    });
    return loading;
  };
  const resolver: Resolver<Input, Context, Output> = async (values, context, options) =>
    (await preload())(values, context, options);
  return { resolver, preload };
}
