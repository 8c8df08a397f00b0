import { CREDENTIAL_LIMITS } from './serviceApi';

/**
 * Checks of the credential's fields, made before any request is sent (by the transport) and again
 * when signing (the credential's `authenticate`, which also serves n8n's credential test). Pure,
 * and no message ever repeats a field's value: a Base URL may carry a password, a key is a secret.
 */

export interface CheckedCredentials {
	apiKey: string;
	secretKey: string;
	/** Scheme, host and any path prefix, without a trailing slash. */
	baseUrl: string;
	recvWindow: number;
	/** Requests a second this n8n process may send with the key, per class (already divided by the processes sharing it). */
	requestsPerSecond: { order: number; query: number };
}

export interface CredentialProblem {
	/** The field's display name in the credential. */
	field:
		| 'API Key'
		| 'Secret Key'
		| 'Base URL'
		| 'Receive Window'
		| 'Order Requests per Second'
		| 'Query Requests per Second'
		| 'n8n Processes Sharing This Key';
	/** What is wrong, completing "The credential's <field> …". */
	problem: string;
	/** How to fix it. */
	fix: string;
}

export type CredentialCheck =
	| { ok: true; credentials: CheckedCredentials }
	| { ok: false; problem: CredentialProblem };

const BASE_URL_EXAMPLE = 'Enter the service address only, e.g. https://api.example.com';

function checkBaseUrl(value: unknown): string | CredentialProblem {
	const problem = (what: string, fix = BASE_URL_EXAMPLE): CredentialProblem => ({
		field: 'Base URL',
		problem: what,
		fix,
	});
	const text = typeof value === 'string' ? value.trim() : '';
	if (text === '') return problem('is empty');
	let url: URL;
	try {
		url = new URL(text);
	} catch {
		return problem('is not a web address');
	}
	if (url.protocol !== 'https:' && url.protocol !== 'http:')
		return problem('must start with https:// or http://');
	if (url.username !== '' || url.password !== '') {
		return problem(
			'contains a user name or password (user:password@)',
			`Remove it: the service authenticates with the API Key and Secret Key, and a password in the URL would be sent to it. ${BASE_URL_EXAMPLE}`,
		);
	}
	if (url.search !== '' || text.includes('?'))
		return problem('contains a query (?…)', `Remove it. ${BASE_URL_EXAMPLE}`);
	if (url.hash !== '' || text.includes('#'))
		return problem('contains a fragment (#…)', `Remove it. ${BASE_URL_EXAMPLE}`);
	let path = url.pathname;
	while (path.endsWith('/')) path = path.slice(0, -1);
	return `${url.protocol}//${url.host}${path}`;
}

function checkKey(field: 'API Key' | 'Secret Key', value: unknown): CredentialProblem | undefined {
	const text = typeof value === 'string' ? value : '';
	if (text === '')
		return { field, problem: 'is empty', fix: `Enter the ${field} the service issued.` };
	if (text.trim() !== text) {
		return {
			field,
			problem: 'starts or ends with a space',
			fix: `Enter the ${field} exactly as the service issued it, without spaces.`,
		};
	}
	return undefined;
}

function checkRecvWindow(value: unknown): number | CredentialProblem {
	const number =
		value === undefined || value === null || value === ''
			? CREDENTIAL_LIMITS.defaultRecvWindowMs
			: Number(value);
	// A credential saved when the field allowed up to 60000 may hold more than the exchange takes:
	// said here, before any request, rather than refused by the service on every request.
	if (Number.isInteger(number) && number > CREDENTIAL_LIMITS.maxRecvWindowMs) {
		return {
			field: 'Receive Window',
			problem: `is over ${CREDENTIAL_LIMITS.maxRecvWindowMs} ms, the most the service accepts (it refuses larger values)`,
			fix: `Open the credential and set Receive Window to ${CREDENTIAL_LIMITS.maxRecvWindowMs} or less (${CREDENTIAL_LIMITS.defaultRecvWindowMs} is the service's default), then save it.`,
		};
	}
	if (!Number.isInteger(number) || number < 1) {
		return {
			field: 'Receive Window',
			problem: `must be a whole number of milliseconds from 1 to ${CREDENTIAL_LIMITS.maxRecvWindowMs}`,
			fix: `Enter ${CREDENTIAL_LIMITS.defaultRecvWindowMs} (the service's default) unless requests fail because of clock drift.`,
		};
	}
	return number;
}

type RateField = 'Order Requests per Second' | 'Query Requests per Second';

/** A whole number from 1 to `max`, or the default when the field is empty (saved before it existed). */
function wholeNumber(value: unknown, fallback: number, max: number): number | undefined {
	const number = value === undefined || value === null || value === '' ? fallback : Number(value);
	return Number.isInteger(number) && number >= 1 && number <= max ? number : undefined;
}

function checkRate(field: RateField, value: unknown, fallback: number): number | CredentialProblem {
	return (
		wholeNumber(value, fallback, CREDENTIAL_LIMITS.maxRequestsPerSecond) ?? {
			field,
			problem: `must be a whole number from 1 to ${CREDENTIAL_LIMITS.maxRequestsPerSecond}`,
			fix: `Enter ${fallback}, the exchange's limit for an API key, unless your account was given another limit.`,
		}
	);
}

/**
 * The requests a second this process may send per class: the account's rates divided by the n8n
 * processes sharing the key, rounded down, so that together they never exceed them. Each process
 * needs at least one request a second of each class.
 */
function checkRates(
	data: Record<string, unknown>,
): { order: number; query: number } | CredentialProblem {
	const order = checkRate(
		'Order Requests per Second',
		data.orderRequestsPerSecond,
		CREDENTIAL_LIMITS.orderRequestsPerSecond,
	);
	if (typeof order !== 'number') return order;
	const query = checkRate(
		'Query Requests per Second',
		data.queryRequestsPerSecond,
		CREDENTIAL_LIMITS.queryRequestsPerSecond,
	);
	if (typeof query !== 'number') return query;
	const lowest = Math.min(order, query);
	const processes = wholeNumber(data.processesSharingKey, 1, lowest);
	if (processes === undefined) {
		return {
			field: 'n8n Processes Sharing This Key',
			problem: `must be a whole number from 1 to ${lowest}, the lower of the two rates`,
			fix: `Enter how many n8n processes send with this key at once (in queue mode: the main process and the workers running these workflows). Each process paces at the rates divided by that number and needs at least one request a second of each kind, so with more processes use another API key for some of them.`,
		};
	}
	return { order: Math.floor(order / processes), query: Math.floor(query / processes) };
}

/** The credential's fields, checked and normalised, or the first problem found. */
export function checkCredentialData(data: Record<string, unknown>): CredentialCheck {
	const baseUrl = checkBaseUrl(data.baseUrl);
	if (typeof baseUrl !== 'string') return { ok: false, problem: baseUrl };
	const keyProblem = checkKey('API Key', data.apiKey) ?? checkKey('Secret Key', data.secretKey);
	if (keyProblem !== undefined) return { ok: false, problem: keyProblem };
	const recvWindow = checkRecvWindow(data.recvWindow);
	if (typeof recvWindow !== 'number') return { ok: false, problem: recvWindow };
	const requestsPerSecond = checkRates(data);
	if (!('order' in requestsPerSecond)) return { ok: false, problem: requestsPerSecond };
	return {
		ok: true,
		credentials: {
			apiKey: String(data.apiKey),
			secretKey: String(data.secretKey),
			baseUrl,
			recvWindow,
			requestsPerSecond,
		},
	};
}

/** "The credential's Base URL contains a query (?…)". */
export function credentialProblemMessage(problem: CredentialProblem): string {
	return `The credential's ${problem.field} ${problem.problem}`;
}

/** The first problem of the credential's fields, or undefined when they are usable. */
export function credentialProblemOf(data: Record<string, unknown>): CredentialProblem | undefined {
	const check = checkCredentialData(data);
	return check.ok ? undefined : check.problem;
}
