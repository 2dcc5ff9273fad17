/** The sign-in form's validation, loaded on the form's first focus (see lib/lazy-resolver.ts). */
import { zodResolver } from '@hookform/resolvers/zod';
import { loginFormSchema } from '@portal/contract/validation';

export const loginResolver = zodResolver(loginFormSchema);
