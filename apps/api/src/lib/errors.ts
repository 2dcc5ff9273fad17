/** Typed errors; one handler (plugins/errors.ts) maps them to statuses and the envelope. */
import { API_MESSAGES } from '@portal/contract/messages';

export class AppError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly issues?: { path: string; message: string }[],
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class BadRequestError extends AppError {
  constructor(message: string = API_MESSAGES.invalidRequest, issues?: { path: string; message: string }[]) {
    super(400, message, issues);
  }
}
export class UnauthorizedError extends AppError {
  constructor(message: string = API_MESSAGES.notAuthenticated) {
    super(401, message);
  }
}
export class ForbiddenError extends AppError {
  constructor(message: string = API_MESSAGES.forbidden) {
    super(403, message);
  }
}
export class NotFoundError extends AppError {
  constructor(message: string = API_MESSAGES.notFound) {
    super(404, message);
  }
}
export class ConflictError extends AppError {
  constructor(message: string) {
    super(409, message);
  }
}
export class TooManyRequestsError extends AppError {
  constructor(message: string = API_MESSAGES.tooManyRequests) {
    super(429, message);
  }
}
/** A provider (hypervisor, cluster) could not be reached or refused the work. */
export class ProviderUnavailableError extends AppError {
  constructor(message: string) {
    super(503, message);
  }
}
