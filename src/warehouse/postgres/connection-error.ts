/**
 * Connection failures worded without the connection URL: no host, port, user, password or
 * database name from the environment reaches a message, a log, a report or a recording. The
 * message says what failed (by the driver's error code or the server's SQLSTATE) and which
 * environment variable holds the URL.
 */
import { ConfigError } from '../../util/errors.js';

/** What a connection error code means, in words that name nothing from the URL. */
const REASONS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'the server refused the connection (is it running, and are the host and port right?)',
  ECONNRESET: 'the server closed the connection',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name could not be resolved (temporary DNS failure)',
  ETIMEDOUT: 'the connection timed out',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
  EACCES: 'permission denied on the connection socket',
  ENOENT: 'the server socket does not exist (is the server running?)',
  '28P01': 'password authentication failed',
  '28000': 'the server rejected the role (check the role and pg_hba.conf)',
  '3D000': 'the database does not exist',
  '53300': 'the server has too many connections',
  '57P03': 'the server is starting up or shutting down',
  '08001': 'the client could not establish the connection',
  '08004': 'the server rejected the connection',
  '08006': 'the connection failed',
  '42501': 'the role may not connect to this database',
};

/** True for an error that concerns connecting, not a statement (driver codes, SQLSTATE classes 08, 28, 3D, 53, 57P). */
export function isConnectionError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') {
    const message = error instanceof Error ? error.message : '';
    return /timeout|terminated|ECONN|connect|Invalid URL|password|SASL|SCRAM/i.test(message);
  }
  return code in REASONS || /^(08|28|3D|53|57P)/.test(code) || /^E[A-Z]+$/.test(code) || code.startsWith('ERR_');
}

/**
 * The error to show for a failed connection of `database`, whose URL is in `$urlEnv`:
 * a {@link ConfigError} naming the variable and the reason, never the URL or any part of it.
 * @example connectionError(Object.assign(new Error('password authentication failed for user "x"'), { code: '28P01' }), 'main', 'DATABASE_URL').message
 *   // 'cannot connect to PostgreSQL for database "main" (URL from $DATABASE_URL): password authentication failed (28P01)'
 */
export function connectionError(error: unknown, database: string, urlEnv: string): ConfigError {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  let reason: string;
  if (typeof code === 'string' && code in REASONS) reason = `${REASONS[code]} (${code})`;
  else if (typeof code === 'string' && /^(08|28|3D|53|57P)/.test(code)) reason = `the server refused the connection (SQLSTATE ${code})`;
  else if (/timeout/i.test(message)) reason = 'the server did not answer in time';
  else if (/Invalid URL|ERR_INVALID_URL/i.test(message) || code === 'ERR_INVALID_URL') reason = 'the value is not a valid postgres:// URL';
  else if (/SASL|SCRAM|password must be a string|client password/i.test(message)) reason = 'the server asks for a password and the URL has none (or it is malformed)';
  else if (/terminated/i.test(message)) reason = 'the server closed the connection while connecting';
  else reason = `the connection failed${typeof code === 'string' ? ` (${code})` : ''}`;
  return new ConfigError(`cannot connect to PostgreSQL for database "${database}" (URL from $${urlEnv}): ${reason}. Check the URL in $${urlEnv}; it is never printed.`);
}
