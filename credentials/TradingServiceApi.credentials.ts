import type {
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	ICredentialType,
	IHttpRequestOptions,
	INodeProperties,
	Icon,
} from 'n8n-workflow';

import { checkCredentialData, credentialProblemMessage } from './credentialChecks';
import { CREDENTIAL_LIMITS, CREDENTIAL_TEST_PATH, MARKET_DATA_PATHS } from './serviceApi';
import { keyOnlyRequestOptions, pathOf, signRequestOptions } from './signing';

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
			placeholder: 'e.g. https://api.example.com',
			description:
				'Web address of the exchange’s API, without a path after the host, e.g. https://api-glb.example.com, or the local sandbox’s address',
		},
		{
			displayName: 'Stream URL',
			name: 'streamUrl',
			type: 'string',
			default: '',
			placeholder: 'e.g. wss://stream.example.com',
			description:
				'Where the real-time trigger listens for your orders and balances (a WebSocket address). Leave empty to derive it from the Base URL: https becomes wss (http becomes ws), and a host that starts with "api" starts with "stream" instead, e.g. https://api-glb.example.com gives wss://stream-glb.example.com; any other host is kept.',
		},
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description:
				'The API key the exchange gave you when you created it (sent with every request, in the X-APIKEY header)',
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
		// Market data takes the API key alone (spec §5.1); everything else is signed.
		if (MARKET_DATA_PATHS.includes(pathOf(requestOptions)))
			return keyOnlyRequestOptions(requestOptions, check.credentials);
		return signRequestOptions(requestOptions, check.credentials, Date.now());
	}

	// The lightest signed read (weight 1) that every valid key may make, whatever its permissions:
	// a wrong API key or a wrong secret fails it, a key that may not read the history passes.
	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{ $credentials.baseUrl }}',
			url: CREDENTIAL_TEST_PATH,
			method: 'GET',
		},
		// n8n shows only the HTTP status text otherwise; the service answers 400 for a bad key,
		// a bad signature and a clock outside the receive window alike.
		rules: [
			{
				type: 'responseCode',
				properties: {
					value: 400,
					message:
						'The service refused the signed request: check the API Key and the Secret Key (they must belong together), and that this server’s clock is right',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 404,
					message: 'No Trading Service at this Base URL: enter the service address without a path',
				},
			},
		],
	};
}
