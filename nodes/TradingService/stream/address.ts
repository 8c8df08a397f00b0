import { PATHS } from '../constants';

/**
 * Where the user data stream is: the credential's Stream URL, or one derived from the Base URL.
 * The exchange serves REST on an "api" host and its streams on the matching "stream" host
 * (api-glb.… and stream-glb.…); a host without that prefix (the sandbox, a proxy) serves both.
 */

export type StreamAddress = { ok: true; url: string } | { ok: false; problem: string; fix: string };

const EXAMPLE = 'e.g. wss://stream.example.com, or leave it empty to derive it from the Base URL';

const refused = (problem: string, fix = EXAMPLE): StreamAddress => ({ ok: false, problem, fix });

const withoutTrailingSlashes = (path: string): string => path.replace(/\/+$/, '');

/** The stream host for a REST host: a leading "api" becomes "stream", anything else is kept. */
export function streamHostOf(host: string): string {
	return /^api(?=[.-])/i.test(host) ? `stream${host.slice(3)}` : host;
}

/** The stream's base address (scheme, host, path prefix), from the credential's fields. */
export function streamAddressOf(baseUrl: unknown, streamUrl: unknown): StreamAddress {
	const typed = typeof streamUrl === 'string' ? streamUrl.trim() : '';
	if (typed !== '') {
		let url: URL;
		try {
			url = new URL(typed);
		} catch {
			return refused("The credential's Stream URL is not a web address");
		}
		if (url.protocol !== 'wss:' && url.protocol !== 'ws:')
			return refused("The credential's Stream URL must start with wss:// or ws://");
		if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '')
			return refused(
				"The credential's Stream URL contains a user name, password, query or fragment",
				`Remove it. ${EXAMPLE}`,
			);
		return { ok: true, url: `${url.protocol}//${url.host}${withoutTrailingSlashes(url.pathname)}` };
	}
	let base: URL;
	try {
		base = new URL(String(baseUrl ?? '').trim());
	} catch {
		return refused(
			"The credential's Base URL is not a web address, so no Stream URL can be derived from it",
			'Enter the Base URL, e.g. https://api.example.com',
		);
	}
	const scheme = base.protocol === 'http:' ? 'ws:' : 'wss:';
	const host = streamHostOf(base.hostname) + (base.port === '' ? '' : `:${base.port}`);
	return { ok: true, url: `${scheme}//${host}${withoutTrailingSlashes(base.pathname)}` };
}

/** The WebSocket address of one listen key. */
export function socketUrlOf(streamBase: string, listenKey: string): string {
	return `${streamBase}${PATHS.userStreamSocket}${encodeURIComponent(listenKey)}`;
}
