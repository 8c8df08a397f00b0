/** An endpoint's answer before it is sent, and the two ways to make one. */

export interface Resp {
	status: number;
	headers: Record<string, string>;
	/** A JSON value, serialized when sent. */
	value?: unknown;
	/** A raw body (when `value` is absent). */
	raw?: string | Buffer;
	/** The error code of an error answer (recorded in the ledger). */
	code?: string;
}

export function json(status: number, value: unknown, headers: Record<string, string> = {}): Resp {
	return { status, value, headers: { 'Content-Type': 'application/json', ...headers } };
}

export function errorResp(
	status: number,
	code: string,
	msg: string,
	headers: Record<string, string> = {},
): Resp {
	return { ...json(status, { code, msg }, headers), code };
}
