/**
 * Listen keys of the user data stream (the family's PRO and Global documentation; the UAE page does
 * not cover the stream): POST creates one, PUT keeps it alive for another 60 minutes, DELETE ends it
 * and closes its sockets. All three are signed, weight 1, open to any valid key. `listenKey` is
 * read from the query string or a form body; a key that is not the caller's own live one gets -1125.
 */
import { CODES } from '../codes';
import { fieldError } from '../errors';
import { MAX_LISTEN_KEYS_PER_API_KEY } from '../stream/listenKeys';
import { errorResp, json, type Resp } from '../response';
import type { Authed, RequestContext, Services } from './route';

function listenKeyOf(auth: Authed): string {
	const k = auth.allParams.get('listenKey');
	if (k === undefined || k === '') throw fieldError('listenKey');
	return k;
}

/** POST /api/v1/userDataStream → {"listenKey": "<64 alphanumerics>"}. */
export function createListenKey(_ctx: RequestContext, auth: Authed, services: Services): Resp {
	const k = services.stream.createListenKey(auth.key);
	if (k) return json(200, { listenKey: k.listenKey });
	// The family documents no limit; the sandbox's: a key that leaks listen keys is told to wait
	// until one of its own expires.
	const waitMs = services.stream.msUntilListenKeyFrees(auth.key.apiKey);
	return errorResp(
		429,
		CODES.rateLimited.code,
		`${CODES.rateLimited.msg} (at most ${MAX_LISTEN_KEYS_PER_API_KEY} live listen keys per API key)`,
		{ 'Retry-After': String(Math.max(1, Math.ceil(waitMs / 1000))) },
	);
}

/** PUT /api/v1/userDataStream?listenKey=K → {}. */
export function keepAliveListenKey(_ctx: RequestContext, auth: Authed, services: Services): Resp {
	services.stream.keepAlive(auth.key.apiKey, listenKeyOf(auth));
	return json(200, {});
}

/** DELETE /api/v1/userDataStream?listenKey=K → {}. */
export function deleteListenKey(_ctx: RequestContext, auth: Authed, services: Services): Resp {
	services.stream.deleteListenKey(auth.key.apiKey, listenKeyOf(auth));
	return json(200, {});
}
