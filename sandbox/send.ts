/**
 * Writing an answer on the wire: whole, or the way a send fault mangles it (drip-fed one byte at a
 * time, cut off halfway, or labelled gzip without being gzip). Ids become bare JSON numbers under
 * the numericIds fault, decimals under numericDecimals.
 */
import type * as http from 'node:http';

import type { ActiveFault } from './faults';
import { NUMERIC_DECIMAL_KEYS, stringifyWithRawIds } from './json';
import type { Resp } from './response';

/** Send `payload` one byte every `intervalMs`, stopping if the client goes away; `timers` holds the pending timer. */
export function drip(
	res: http.ServerResponse,
	payload: Buffer,
	intervalMs: number,
	timers: Set<NodeJS.Timeout>,
): void {
	let i = 0;
	const next = () => {
		if (res.destroyed) return;
		if (i >= payload.length) {
			res.end();
			return;
		}
		res.write(payload.subarray(i, i + 1));
		i++;
		const t = setTimeout(() => {
			timers.delete(t);
			next();
		}, intervalMs);
		timers.add(t);
	};
	next();
}

/** The body bytes of an answer. */
export function payloadOf(resp: Resp, fault: ActiveFault | null): Buffer {
	const text =
		resp.value === undefined
			? (resp.raw ?? '')
			: fault?.kind === 'numericIds'
				? stringifyWithRawIds(resp.value)
				: fault?.kind === 'numericDecimals'
					? stringifyWithRawIds(resp.value, NUMERIC_DECIMAL_KEYS)
					: JSON.stringify(resp.value);
	return Buffer.isBuffer(text) ? text : Buffer.from(text, 'utf8');
}

/** Write `resp` to `res`, shaped by the request's fault (drip timers go into `timers`). */
export function sendAnswer(
	req: http.IncomingMessage,
	res: http.ServerResponse,
	resp: Resp,
	fault: ActiveFault | null,
	timers: Set<NodeJS.Timeout>,
): void {
	const payload = payloadOf(resp, fault);
	const headers = { ...resp.headers, 'Content-Length': String(payload.length) };
	switch (fault?.kind) {
		case 'dripFeed':
			res.writeHead(resp.status, headers);
			drip(res, payload, Math.max(1, fault.rule.dripIntervalMs ?? 50), timers);
			return;
		case 'answerTruncated':
			// Content-Length promises the whole answer; half of it arrives, then the connection closes
			res.writeHead(resp.status, headers);
			res.write(payload.subarray(0, Math.floor(payload.length / 2)), () => req.socket.destroy());
			return;
		case 'answerBadGzip':
			res.writeHead(resp.status, { ...headers, 'Content-Encoding': 'gzip' });
			res.end(payload);
			return;
		default:
			res.writeHead(resp.status, headers);
			res.end(payload);
	}
}
