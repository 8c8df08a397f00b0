import { createHmac, type KeyObject } from 'node:crypto';

import type { IDataObject, IHttpRequestOptions } from 'n8n-workflow';

import { signEd25519 } from './ed25519';

/**
 * Request signing (spec §5.3), testable against fixed vectors: the lowercase hex HMAC-SHA256 of
 * the query string immediately followed by the body, with no `&` between them.
 */
export function sign(totalParams: string, secret: string): string {
	return createHmac('sha256', secret).update(totalParams, 'utf8').digest('hex');
}

/** Percent-encodes everything but RFC 3986 unreserved characters (encodeURIComponent leaves `!'()*`). */
export function encodeRfc3986(value: string): string {
	return encodeURIComponent(value).replace(
		/[!'()*]/g,
		(char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`,
	);
}

export type ParamValue = string | number | boolean | null | undefined | ParamValue[];

/** `key=value` pairs joined by `&`, in order; arrays repeat the key; no `undefined`, `null` (as axios). */
export function serializeParams(params: Iterable<[string, ParamValue]>): string {
	const pairs: string[] = [];
	const append = (key: string, value: ParamValue) => {
		if (value === undefined || value === null) return;
		if (Array.isArray(value)) {
			for (const element of value) append(key, element);
			return;
		}
		pairs.push(`${encodeRfc3986(key)}=${encodeRfc3986(String(value))}`);
	};
	for (const [key, value] of params) append(key, value);
	return pairs.join('&');
}

/** The keys the signer owns: a query string being signed again has them removed first. */
export const SIGNER_OWNED_KEYS = ['timestamp', 'signature'] as const;

/** A raw query string's `key=value` pairs, their encoding kept byte for byte. */
export function splitQuery(query: string): string[] {
	return query === '' ? [] : query.split('&').filter((pair) => pair !== '');
}

export function pairKey(pair: string): string {
	const equals = pair.indexOf('=');
	return decodeURIComponent((equals === -1 ? pair : pair.slice(0, equals)).replace(/\+/g, ' '));
}

export interface SignedQuery {
	/** To send, `signature` last. */
	query: string;
	signature: string;
}

/**
 * Drops any old `timestamp` and `signature`, appends `recvWindow` (unless there is one) and
 * `timestamp`, and signs `query + body` (`body`: the exact string sent, '' when none).
 */
export function signQuery(
	query: string,
	body: string,
	secret: string,
	timestamp: number,
	recvWindow: number,
): SignedQuery {
	return signQueryWith(query, body, (text) => sign(text, secret), timestamp, recvWindow);
}

/**
 * As signQuery, with any signer of the text (HMAC or Ed25519); the signature is percent-encoded
 * (RFC 3986) into the query: a hex HMAC is unchanged by it, a Base64 one needs it (`+`, `/`, `=`).
 */
export function signQueryWith(
	query: string,
	body: string,
	signer: (totalParams: string) => string,
	timestamp: number,
	recvWindow: number,
): SignedQuery {
	const pairs = splitQuery(query).filter(
		(pair) => !(SIGNER_OWNED_KEYS as readonly string[]).includes(pairKey(pair)),
	);
	if (!pairs.some((pair) => pairKey(pair) === 'recvWindow')) {
		pairs.push(`recvWindow=${recvWindow}`);
	}
	pairs.push(`timestamp=${timestamp}`);
	const signedQuery = pairs.join('&');
	const signature = signer(signedQuery + body);
	return { query: `${signedQuery}&signature=${encodeRfc3986(signature)}`, signature };
}

/** As n8n hands them to `authenticate`: the `httpRequest` shape, or the legacy one (`uri`, `form`). */
type RequestOptionsToSign = IHttpRequestOptions & {
	uri?: string;
	form?: IDataObject | string;
};

export interface TradingServiceCredentials {
	apiKey: string;
	secretKey: string;
	baseUrl: string;
	recvWindow: number;
	/** Set for Authentication "Ed25519": it signs instead of the secret. */
	privateKey?: KeyObject;
}

const JSON_CONTENT_TYPE = 'application/json';
const FORM_CONTENT_TYPE = 'application/x-www-form-urlencoded';

function findHeader(headers: IDataObject, name: string): string | undefined {
	return Object.keys(headers).find((key) => key.toLowerCase() === name.toLowerCase());
}

function setHeader(headers: IDataObject, name: string, value: string) {
	const existing = findHeader(headers, name);
	if (existing !== undefined && existing !== name) delete headers[existing];
	headers[name] = value;
}

function isEmptyBody(body: unknown): boolean {
	if (body === undefined || body === null || body === '') return true;
	if (typeof body === 'object' && !Array.isArray(body)) return Object.keys(body).length === 0;
	return false;
}

/**
 * The body as the exact string sent, so that what is signed is what goes over the wire: JSON
 * unless a form is asked for; a string is taken as already serialised (by a first signing pass).
 */
function serializeBody(options: RequestOptionsToSign, headers: IDataObject): string {
	const contentTypeKey = findHeader(headers, 'content-type');
	const contentType = contentTypeKey ? String(headers[contentTypeKey]) : undefined;
	const source =
		isEmptyBody(options.body) && options.form !== undefined ? options.form : options.body;
	const wantsForm =
		(contentType?.startsWith(FORM_CONTENT_TYPE) ?? false) ||
		(isEmptyBody(options.body) && options.form !== undefined);
	delete options.form;
	if (isEmptyBody(source)) {
		delete options.body;
		return '';
	}
	let body: string;
	if (typeof source === 'string') {
		body = source;
		if (contentType === undefined) {
			const looksLikeJson = /^\s*[[{]/.test(body);
			setHeader(headers, 'Content-Type', looksLikeJson ? JSON_CONTENT_TYPE : FORM_CONTENT_TYPE);
		}
	} else if (wantsForm && typeof source === 'object' && !Array.isArray(source)) {
		body = serializeParams(Object.entries(source as Record<string, ParamValue>));
		setHeader(headers, 'Content-Type', FORM_CONTENT_TYPE);
	} else {
		body = JSON.stringify(source);
		if (contentType === undefined) setHeader(headers, 'Content-Type', JSON_CONTENT_TYPE);
	}
	options.body = body;
	return body;
}

/** A relative request goes to the Base URL; an absolute URL, a `uri` or a `baseURL` is kept. */
function pointAtBaseUrl(
	options: RequestOptionsToSign,
	credentials: TradingServiceCredentials,
): void {
	if (typeof options.uri === 'string' || /^https?:\/\//i.test(options.url ?? '') || options.baseURL)
		return;
	if (!/^https?:\/\/[^/]/i.test(credentials.baseUrl)) {
		// Never the value itself: a Base URL may carry a password.
		throw new Error(
			"The credential's Base URL is not an http(s) address: enter the service address, e.g. https://api-pro.hashkey.com",
		);
	}
	options.baseURL = credentials.baseUrl;
}

/** Marks a request of an endpoint declared `signed: false` (API key alone); removed before sending. */
export const KEY_ONLY_HEADER = 'X-Trading-Service-Key-Only';

/** Whether a request is marked key-only; the mark is removed from it either way. */
export function isKeyOnly(requestOptions: IHttpRequestOptions): boolean {
	const headers = requestOptions.headers ?? {};
	const name = Object.keys(headers).find(
		(key) => key.toLowerCase() === KEY_ONLY_HEADER.toLowerCase(),
	);
	if (name === undefined) return false;
	const { [name]: mark, ...others } = headers;
	requestOptions.headers = others;
	return String(mark) === '1';
}

/** Market data (spec §5.1): the service asks for a valid key only, so no timestamp or signature. */
export function keyOnlyRequestOptions(
	requestOptions: IHttpRequestOptions,
	credentials: TradingServiceCredentials,
): IHttpRequestOptions {
	const options: RequestOptionsToSign = { ...(requestOptions as RequestOptionsToSign) };
	const headers: IDataObject = { ...(options.headers ?? {}) };
	pointAtBaseUrl(options, credentials);
	setHeader(headers, 'X-APIKEY', credentials.apiKey);
	options.headers = headers;
	return options;
}

/**
 * Signs one request (spec §5). The query string is serialised here (RFC 3986, order kept) onto the
 * URL and `qs` removed, the body serialised once: what is signed is byte for byte what is sent.
 * Signing signed options again (n8n does on retry) replaces the old timestamp and signature.
 */
export function signRequestOptions(
	requestOptions: IHttpRequestOptions,
	credentials: TradingServiceCredentials,
	now: number,
): IHttpRequestOptions {
	const options: RequestOptionsToSign = { ...(requestOptions as RequestOptionsToSign) };
	const headers: IDataObject = { ...(options.headers ?? {}) };
	const usesLegacyUri = typeof options.uri === 'string';
	const target = (usesLegacyUri ? options.uri : options.url) ?? '';
	pointAtBaseUrl(options, credentials);

	const withoutFragment = target.split('#')[0];
	const queryStart = withoutFragment.indexOf('?');
	const path = queryStart === -1 ? withoutFragment : withoutFragment.slice(0, queryStart);
	const queryParts = [queryStart === -1 ? '' : withoutFragment.slice(queryStart + 1)];
	if (options.qs !== undefined) {
		queryParts.push(serializeParams(Object.entries(options.qs as Record<string, ParamValue>)));
		delete options.qs;
	}
	const query = queryParts.filter((part) => part !== '').join('&');

	const body = serializeBody(options, headers);
	const { privateKey, secretKey } = credentials;
	const signer = (text: string) =>
		privateKey === undefined ? sign(text, secretKey) : signEd25519(text, privateKey);
	const signed = signQueryWith(query, body, signer, now, credentials.recvWindow);
	const signedUrl = `${path}?${signed.query}`;
	if (usesLegacyUri) options.uri = signedUrl;
	else options.url = signedUrl;

	setHeader(headers, 'X-APIKEY', credentials.apiKey);
	options.headers = headers;
	return options;
}
