/**
 * A hand-written signer for the benchmarks' bare client, written from the API spec §5 only (it
 * shares no code with credentials/signing.ts):
 *
 *   §5.2  header X-APIKEY: <API_KEY>
 *   §5.3  signature = hex(HMAC-SHA256(key = SECRET_KEY, message = totalParams)),
 *         totalParams = query string + request body, concatenated with no separator;
 *         the signature parameter itself is not part of the signed text.
 *   §5.4  timestamp (ms) and optional recvWindow are ordinary parameters of the signed text.
 */
import { createHmac } from 'node:crypto';

export type Params = Array<[string, string | number]>;

/** `k=v&k=v`, RFC 3986 percent-encoding, in the order given. */
export function encodeQuery(params: Params): string {
	return params.map(([key, value]) => `${rfc3986(key)}=${rfc3986(String(value))}`).join('&');
}

function rfc3986(text: string): string {
	return encodeURIComponent(text).replace(
		/[!'()*]/g,
		(c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
	);
}

export function hmacSha256Hex(secret: string, message: string): string {
	return createHmac('sha256', secret).update(message, 'utf8').digest('hex');
}

export interface SignedParts {
	/** Path plus signed query string, `signature` last. */
	url: string;
	/** The body exactly as signed ('' for none). */
	body: string;
}

/**
 * Stamps and signs one request: appends recvWindow and timestamp to the query, signs
 * query + body, appends `signature`.
 */
export function signRequest(
	path: string,
	params: Params,
	body: string,
	secret: string,
	timestamp: number,
	recvWindow = 5000,
): SignedParts {
	const query = encodeQuery([...params, ['recvWindow', recvWindow], ['timestamp', timestamp]]);
	const signature = hmacSha256Hex(secret, query + body);
	return { url: `${path}?${query}&signature=${signature}`, body };
}
