/** The one error model: typed errors and framework errors become statuses and `{ message, data }`. */
import type { FastifyError, FastifyInstance } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { API_MESSAGES, VALIDATION } from '@portal/contract/messages';
import { AppError, SQLSTATE, databaseErrorOf, isDatabaseUnavailable, loggableError } from '../lib/errors.ts';

/** Seconds a client is asked to wait while the database is unreachable (recovery is automatic). */
const DATABASE_RETRY_AFTER_S = 5;

interface Issue {
  path: string;
  message: string;
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const requestId = request.id;
    if (hasZodFastifySchemaValidationErrors(error)) {
      const issues: Issue[] = error.validation.map((v) => {
        const where = v.instancePath.replace(/^\//, '').replace(/\//g, '.');
        const params = v.params as { issue?: { code?: string; keys?: string[] } };
        const keys = params.issue?.code === 'unrecognized_keys' ? params.issue.keys?.join(', ') : undefined;
        const field = [error.validationContext, where].filter(Boolean).join('.');
        return { path: field, message: keys ? `Unknown field: ${keys}` : (v.message ?? 'Invalid value') };
      });
      // The message is shown to people as it is, so it carries no internal field path ("(body.monthlyPrice)"):
      // clients that need the field read it from `data.issues[].path`.
      const message = issues[0]?.message ?? API_MESSAGES.invalidRequest;
      return reply.status(400).send({ message, data: { requestId, issues } });
    }
    if (error instanceof AppError) {
      if (error.headers) reply.headers(error.headers);
      return reply
        .status(error.statusCode)
        .send({ message: error.message, data: { requestId, ...(error.issues ? { issues: error.issues } : {}) } });
    }
    if (isResponseSerializationError(error)) {
      request.log.error({ err: error, issues: error.cause?.issues }, 'response did not match the contract');
      return reply.status(500).send({ message: API_MESSAGES.internal, data: { requestId } });
    }
    if (isDatabaseUnavailable(error)) {
      // An outage, not a bug: say so, and when to try again. The pool reconnects by itself once the
      // database is back, so the next request after that succeeds without a restart.
      request.log.error({ err: loggableError(error) }, 'database unreachable');
      return reply
        .status(503)
        .header('retry-after', String(DATABASE_RETRY_AFTER_S))
        .send({ message: API_MESSAGES.databaseUnavailable, data: { requestId } });
    }
    const db = databaseErrorOf(error);
    if (db) {
      // A safety net, not the plan: services check first, but two requests can still race between the
      // check and the write. The constraint held, so the answer is a conflict, not a crash.
      const answer =
        db.code === SQLSTATE.uniqueViolation
          ? { status: 409, message: API_MESSAGES.duplicate }
          : db.code === SQLSTATE.foreignKeyViolation
            ? { status: 409, message: API_MESSAGES.referenceConflict }
            : db.code === SQLSTATE.invalidByteSequence
              ? { status: 400, message: VALIDATION.controlCharacters }
              : null;
      // Logged without the query's parameters (sign-in codes, tokens and personal data can be among them).
      if (answer) {
        request.log.warn({ err: loggableError(error) }, `database refused the write (${db.code})`);
        return reply.status(answer.status).send({ message: answer.message, data: { requestId } });
      }
      request.log.error({ err: loggableError(error) }, 'unhandled database error');
      return reply.status(500).send({ message: API_MESSAGES.internal, data: { requestId } });
    }
    const status = error.statusCode ?? 500;
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      // A body over the limit is bad input like any other (issue 2: 400, never 5xx).
      return reply.status(400).send({ message: API_MESSAGES.payloadTooLarge, data: { requestId } });
    }
    if (status === 429) {
      return reply.status(429).send({ message: API_MESSAGES.tooManyRequests, data: { requestId } });
    }
    if (status >= 400 && status < 500) {
      // Framework client errors (bad JSON, wrong content type, empty body): safe to describe.
      return reply
        .status(status === 413 || status === 415 ? 400 : status)
        .send({ message: clientMessage(error), data: { requestId } });
    }
    request.log.error({ err: loggableError(error) }, 'unhandled error');
    return reply.status(500).send({ message: API_MESSAGES.internal, data: { requestId } });
  });

  app.setNotFoundHandler((request, reply) => {
    reply.status(404).send({ message: API_MESSAGES.routeNotFound, data: { requestId: request.id } });
  });
}

function clientMessage(error: FastifyError): string {
  switch (error.code) {
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return 'Request body must not be empty';
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return 'Content type must be application/json';
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    default:
      if (error instanceof SyntaxError || error.code === 'FST_ERR_CTP_INVALID_JSON_BODY')
        return 'Request body is not valid JSON';
      return API_MESSAGES.invalidRequest;
  }
}
