// Which login form a request uses and the credentials it carries (pure). Headers
// (X-Api-Client-Id / X-Api-Client-Secret) with no body at all, or a JSON body
// {apiClientId, apiClientSecret} with no credential headers; both at once is InvalidData.
import { SandboxApiError } from './error-codes.js';

export interface LoginRequest {
  readonly clientIdHeader: string | undefined;
  readonly clientSecretHeader: string | undefined;
  readonly contentLength: string | undefined;
  readonly transferEncoding: string | undefined;
  /** The parsed body; undefined when there was none. */
  readonly body: unknown;
}

export interface Credentials {
  readonly apiClientId: string;
  readonly apiClientSecret: string;
}

export function readCredentials(req: LoginRequest): Credentials {
  const byHeaders = req.clientIdHeader !== undefined || req.clientSecretHeader !== undefined;
  const hasBody = req.transferEncoding !== undefined || (req.contentLength !== undefined && req.contentLength !== '0');
  if (byHeaders) {
    if (hasBody) {
      throw new SandboxApiError(
        'InvalidData',
        'send the credentials either in the X-Api-Client-Id/X-Api-Client-Secret headers with no body, or in a JSON body, not both',
      );
    }
    return required(req.clientIdHeader, req.clientSecretHeader);
  }
  if (req.body === undefined) return required(undefined, undefined);
  if (typeof req.body !== 'object' || req.body === null || Array.isArray(req.body)) {
    throw new SandboxApiError('InvalidData', 'the login body must be a JSON object {apiClientId, apiClientSecret}');
  }
  const id = field(req.body, 'apiClientId');
  const secret = field(req.body, 'apiClientSecret');
  return required(id, secret);
}

function field(body: object, name: string): string | undefined {
  const value: unknown = Object.entries(body).find(([key]) => key === name)?.[1];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new SandboxApiError('InvalidData', `${name} must be a string`);
  return value;
}

function required(id: string | undefined, secret: string | undefined): Credentials {
  if (id === undefined || id === '') throw new SandboxApiError('ApiClientIdRequired', 'the API client id is required');
  if (secret === undefined || secret === '') throw new SandboxApiError('ApiClientSecretRequired', 'the API client secret is required');
  return { apiClientId: id, apiClientSecret: secret };
}
