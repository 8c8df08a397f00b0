import type {
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	ICredentialType,
	IHttpRequestOptions,
	INodeProperties,
	Icon,
} from 'n8n-workflow';

import type { KeyObject } from 'node:crypto';

import { ed25519PrivateKey } from './ed25519';
import { isKeyOnly, keyOnlyRequestOptions, signRequestOptions } from './signing';

export { KEY_ONLY_HEADER } from './signing';

/**
 * The credential of the Trading Service API: the limits of its fields (constants.ts reads them, so
 * credential and node agree), their checks (by the transport before anything is sent, and again
 * when signing; docs/transport.md), and how it authenticates a request. No check's message repeats
 * a field's value: a Base URL may carry a password, a key is a secret.
 */

export const CREDENTIAL_LIMITS = {
	/** Per key and second (UAE documentation, "Order Rate Limiting"); other accounts edit them. */
	orderRequestsPerSecond: 20,
	queryRequestsPerSecond: 5,
	maxRequestsPerSecond: 1000,
	/** spec §5.4 recommends ≤ 5000. */
	defaultRecvWindowMs: 5000,
	/** The UAE documentation's maximum (more is refused): every wait on a receive window stops here. */
	maxRecvWindowMs: 8000,
} as const;

/** What the credential test says when the Base URL's host answers that the service is elsewhere. */
const MOVED_HOST_MESSAGE =
	'The service is not at this Base URL (it answered with a redirect or "gone"). Since 2026-06-16 the exchange serves its API at api-pro instead of api-glb: enter e.g. https://api-pro.hashkey.com (sandbox: https://api-pro.sim.hashkeydev.com)';

/** The lightest signed read every valid key may make (the credential test). */
const CREDENTIAL_TEST_PATH = '/api/v1/account/checkApiKey';

interface CheckedCredentials {
	apiKey: string;
	secretKey: string;
	/** Authentication "Ed25519": signs instead of the secret. */
	privateKey?: KeyObject;
	/** Scheme, host and any path prefix, without a trailing slash. */
	baseUrl: string;
	recvWindow: number;
	/** Per class, for this n8n process (already divided by the processes sharing the key). */
	requestsPerSecond: { order: number; query: number };
}

export interface CredentialProblem {
	field:
		| 'API Key'
		| 'Secret Key'
		| 'Private Key'
		| 'Base URL'
		| 'Receive Window'
		| 'Order Requests per Second'
		| 'Query Requests per Second'
		| 'n8n Processes Sharing This Key';
	/** Completes "The credential's <field> …". */
	problem: string;
	fix: string;
}

type CredentialCheck =
	| { ok: true; credentials: CheckedCredentials }
	| { ok: false; problem: CredentialProblem };

const BASE_URL_EXAMPLE = 'Enter the service address only, e.g. https://api-pro.hashkey.com';

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

/** A whole number from 1 to `max`; the default when empty (saved before the field existed). */
function wholeNumber(value: unknown, fallback: number, max: number): number | undefined {
	const number = value === undefined || value === null || value === '' ? fallback : Number(value);
	return Number.isInteger(number) && number >= 1 && number <= max ? number : undefined;
}

function checkRate(
	field: 'Order Requests per Second' | 'Query Requests per Second',
	data: Record<string, unknown>,
	name: 'orderRequestsPerSecond' | 'queryRequestsPerSecond',
): number | CredentialProblem {
	const fallback = CREDENTIAL_LIMITS[name];
	return (
		wholeNumber(data[name], fallback, CREDENTIAL_LIMITS.maxRequestsPerSecond) ?? {
			field,
			problem: `must be a whole number from 1 to ${CREDENTIAL_LIMITS.maxRequestsPerSecond}`,
			fix: `Enter ${fallback}, the exchange's limit for an API key, unless your account was given another limit.`,
		}
	);
}

/** The account's rates divided by the processes sharing the key, rounded down: together never more. */
function checkRates(
	data: Record<string, unknown>,
): { order: number; query: number } | CredentialProblem {
	const order = checkRate('Order Requests per Second', data, 'orderRequestsPerSecond');
	if (typeof order !== 'number') return order;
	const query = checkRate('Query Requests per Second', data, 'queryRequestsPerSecond');
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

/** HMAC (the default, and what a credential saved before the choice existed does) or Ed25519. */
function checkSigner(
	data: Record<string, unknown>,
): { privateKey?: KeyObject } | CredentialProblem {
	if (data.signatureMethod !== 'ed25519')
		return checkKey('Secret Key', data.secretKey) ?? { privateKey: undefined };
	const key = ed25519PrivateKey(data.privateKey);
	return 'problem' in key ? { field: 'Private Key', ...key } : { privateKey: key };
}

/** The fields checked and normalised, or the first problem found. */
export function checkCredentialData(data: Record<string, unknown>): CredentialCheck {
	const baseUrl = checkBaseUrl(data.baseUrl);
	if (typeof baseUrl !== 'string') return { ok: false, problem: baseUrl };
	const keyProblem = checkKey('API Key', data.apiKey);
	if (keyProblem !== undefined) return { ok: false, problem: keyProblem };
	const signer = checkSigner(data);
	if ('problem' in signer) return { ok: false, problem: signer };
	const recvWindow = checkRecvWindow(data.recvWindow);
	if (typeof recvWindow !== 'number') return { ok: false, problem: recvWindow };
	const requestsPerSecond = checkRates(data);
	if (!('order' in requestsPerSecond)) return { ok: false, problem: requestsPerSecond };
	return {
		ok: true,
		credentials: {
			apiKey: String(data.apiKey),
			secretKey: String(data.secretKey ?? ''),
			privateKey: signer.privateKey,
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

export class TradingServiceApi implements ICredentialType {
	// n8n's scanner reads the name as a literal: this is CREDENTIAL_TYPE.
	name = 'tradingServiceApi';

	displayName = 'Trading Service API';

	icon: Icon = {
		light: 'file:../nodes/TradingService/tradingService.svg',
		dark: 'file:../nodes/TradingService/tradingService.dark.svg',
	};

	documentationUrl =
		'https://github.com/n8n-nodes-trading-service/n8n-nodes-trading-service#credentials';

	// In the order users fill them in: where the service is, then the key and its secret.
	properties: INodeProperties[] = [
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'e.g. https://api-pro.hashkey.com',
			description:
				'Web address of the exchange’s API, without a path after the host, e.g. https://api-pro.hashkey.com (its sandbox: https://api-pro.sim.hashkeydev.com), or the local sandbox’s address',
		},
		{
			displayName:
				'Since 2026-06-16 the exchange serves its API at api-pro (and its streams at stream-pro) instead of api-glb: replace api-glb with api-pro in the Base URL, e.g. https://api-pro.hashkey.com',
			name: 'movedHostNotice',
			type: 'notice',
			default: '',
			displayOptions: { show: { baseUrl: [{ _cnd: { includes: 'api-glb.' } }] } },
		},
		{
			displayName: 'Stream URL',
			name: 'streamUrl',
			type: 'string',
			default: '',
			placeholder: 'e.g. wss://stream-pro.hashkey.com',
			description:
				'Where the real-time trigger listens for your orders and balances (a WebSocket address). Leave empty to derive it from the Base URL: https becomes wss (http becomes ws), and a host that starts with "api" starts with "stream" instead, e.g. https://api-pro.hashkey.com gives wss://stream-pro.hashkey.com; any other host is kept.',
		},
		{
			displayName: 'Authentication',
			name: 'signatureMethod',
			type: 'options',
			options: [
				{
					name: 'HMAC (Secret Key)',
					value: 'hmac',
					description: 'The exchange created the key and showed its secret once',
				},
				{
					name: 'Ed25519 (Self-Generated Key)',
					value: 'ed25519',
					description: 'You generated a key pair and uploaded its public key to the exchange',
				},
			],
			default: 'hmac',
			description: 'How requests are signed: the kind of API key you created on the exchange',
		},
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description:
				'The API key the exchange shows for your key (for an Ed25519 key, the one it gave for the uploaded public key); sent with every request, in the X-APIKEY header',
		},
		{
			displayName: 'Secret Key',
			name: 'secretKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description:
				'The secret shown once with the API key. It signs every request and never leaves n8n.',
			displayOptions: { show: { signatureMethod: ['hmac'] } },
		},
		{
			displayName: 'Private Key',
			name: 'privateKey',
			type: 'string',
			typeOptions: { password: true, rows: 4 },
			default: '',
			required: true,
			placeholder: '-----BEGIN PRIVATE KEY-----',
			description:
				'The private key of your Ed25519 key pair in PEM format (PKCS#8, from -----BEGIN PRIVATE KEY----- to -----END PRIVATE KEY-----). It signs every request and never leaves n8n; the exchange has only its public key.',
			displayOptions: { show: { signatureMethod: ['ed25519'] } },
		},
		{
			displayName: 'Receive Window (Milliseconds)',
			name: 'recvWindow',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: CREDENTIAL_LIMITS.maxRecvWindowMs },
			// n8n's lint reads defaults as literals: this is CREDENTIAL_LIMITS.defaultRecvWindowMs.
			default: 5000,
			hint: 'In milliseconds: 5000 is 5 seconds; at most 8000',
			description:
				'How long a request stays valid after it is signed, in milliseconds (1000 ms = 1 second): 1 to 8000, the exchange refuses more. 5000 (5 seconds) suits most; raise it only if requests fail because this server’s clock is off.',
		},
		{
			displayName: 'Order Requests per Second',
			name: 'orderRequestsPerSecond',
			type: 'number',
			typeOptions: {
				minValue: 1,
				maxValue: CREDENTIAL_LIMITS.maxRequestsPerSecond,
				numberPrecision: 0,
			},
			// n8n's lint reads defaults as literals: this is CREDENTIAL_LIMITS.orderRequestsPerSecond.
			default: 20,
			description:
				'Most order requests (new orders, batch orders, cancels) the exchange allows this key per second. The node never sends more: over it the exchange suspends the key for a minute. 20 is the exchange’s limit; change it only if your account has another.',
		},
		{
			displayName: 'Query Requests per Second',
			name: 'queryRequestsPerSecond',
			type: 'number',
			typeOptions: {
				minValue: 1,
				maxValue: CREDENTIAL_LIMITS.maxRequestsPerSecond,
				numberPrecision: 0,
			},
			// CREDENTIAL_LIMITS.queryRequestsPerSecond
			default: 5,
			description:
				'Most other requests (balances, history, order lookups, prices and other market data, transfers) the exchange allows this key per second. The node never sends more. 5 is the exchange’s limit; change it only if your account has another.',
		},
		{
			displayName: 'n8n Processes Sharing This Key',
			name: 'processesSharingKey',
			type: 'number',
			typeOptions: { minValue: 1, numberPrecision: 0 },
			default: 1,
			hint: '1 for a single n8n; in queue mode, the main process plus each worker',
			description:
				'How many n8n processes use this key at the same time (a count): 1 for a single n8n; in queue mode, the main process plus every worker that runs these workflows. Each process sends at most the two rates above divided by this number (rounded down), so together they stay within the exchange’s limits.',
		},
		{
			displayName: 'Weight Budget',
			name: 'weightBudget',
			type: 'number',
			typeOptions: { minValue: 0 },
			default: 0,
			hint: '0 (the default): no budget, the node waits when the exchange says “too many requests”',
			description:
				'0 (the default) means no budget: the node counts no weight, and when the exchange answers "too many requests" (HTTP 429) it waits as told (Retry-After, else 1 minute). Otherwise, the most request weight the exchange allows this key per Weight Window (history, balances, past orders and the account list weigh 5 each, other requests 1); the node paces its requests to stay under it. Per n8n process: with several processes (queue mode), enter the budget divided by their number.',
		},
		{
			displayName: 'Weight Window (Seconds)',
			name: 'weightWindowSeconds',
			type: 'number',
			typeOptions: { minValue: 1 },
			default: 60,
			description: 'How many seconds the Weight Budget covers, e.g. 60 for a budget per minute',
			displayOptions: { hide: { weightBudget: [0] } },
		},
	];

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		// The node checks the same before sending anything; this also covers n8n's credential test.
		const check = checkCredentialData(credentials);
		if (!check.ok)
			throw new Error(`${credentialProblemMessage(check.problem)}. ${check.problem.fix}`);
		// Market data takes the API key alone (spec §5.1): the node marks such a request, since its
		// endpoints declare it; everything else is signed.
		if (isKeyOnly(requestOptions)) return keyOnlyRequestOptions(requestOptions, check.credentials);
		return signRequestOptions(requestOptions, check.credentials, Date.now());
	}

	// Whatever the key's permissions: a wrong API key or secret fails it, a key that may not read
	// the history passes.
	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{ $credentials.baseUrl }}',
			url: CREDENTIAL_TEST_PATH,
			method: 'GET',
			// As the node's requests: a signed request is never carried to another address.
			disableFollowRedirect: true,
		},
		// n8n shows only the HTTP status text otherwise; the service answers 400 for a bad key,
		// a bad signature, an expired key, a refused IP and a clock outside the receive window alike.
		// A connection failure n8n reports as its bare code (ENOTFOUND): no rule can reword it.
		rules: [
			{
				type: 'responseCode',
				properties: {
					value: 400,
					message:
						'The service refused the signed request: check the API Key and the Secret Key or Private Key (they must belong together), that the key has not expired (keys unused for 90 days expire) and allows this server’s IP address (API Management page of the exchange), and that this server’s clock is right',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 404,
					message: 'No Trading Service at this Base URL: enter the service address without a path',
				},
			},
			...[301, 302, 307, 308, 410].map((value) => ({
				type: 'responseCode' as const,
				properties: { value, message: MOVED_HOST_MESSAGE },
			})),
		],
	};
}
