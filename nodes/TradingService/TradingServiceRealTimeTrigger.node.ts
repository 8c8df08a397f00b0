import {
	NodeConnectionTypes,
	NodeOperationError,
	type INodeProperties,
	type INodeType,
	type INodeTypeDescription,
	type ITriggerFunctions,
	type ITriggerResponse,
} from 'n8n-workflow';

import { CREDENTIAL_TYPE } from './constants';
import { optionsCollection } from './descriptions/common';
import { pickerField } from './descriptions/pickers';
import {
	searchCoins,
	searchContracts,
	searchSymbols,
	searchTradingAccounts,
} from './methods/listSearch';
import { STREAM_EVENT_KINDS } from './stream/events';
import { StreamSession } from './stream/session';
import {
	DEFAULT_OUTAGE_REPORT_MINUTES,
	MAX_OUTAGE_REPORT_MINUTES,
	readStreamSettings,
	streamAddressOf,
} from './stream/streamSettings';
import { ServiceClient } from './transport';
import { runtimeWebSocket } from './transport/socket';

const properties: INodeProperties[] = [
	{
		displayName:
			'Starts the workflow within a second of each chosen event, one execution per event, from the exchange’s user data stream. After a disconnect or a restart it reads what it missed over REST, so no fill, order or position event is lost or repeated. Needs n8n on Node.js 22 or later.',
		name: 'notice',
		type: 'notice',
		default: '',
	},
	{
		displayName: 'Events',
		name: 'events',
		type: 'multiOptions',
		required: true,
		default: ['orderFilled'],
		options: STREAM_EVENT_KINDS.map(({ name, value, description }) => ({
			name,
			value,
			description,
		})),
		description: 'Which events start the workflow',
	},
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		options: [
			pickerField(
				2,
				'symbols',
				{
					displayName: 'Symbol',
					name: 'symbol',
					type: 'string',
					default: '',
					description: 'Only spot order events of this symbol (exact match)',
				},
				{ description: 'Only spot order events of this symbol' },
			),
			pickerField(
				2,
				'coins',
				{
					displayName: 'Coin',
					name: 'coin',
					type: 'string',
					default: '',
					description: 'Only balance events of this coin (exact match)',
				},
				{ description: 'Only balance events of this coin' },
			),
			pickerField(
				2,
				'contracts',
				{
					displayName: 'Contract',
					name: 'contract',
					type: 'string',
					default: '',
					description:
						'Only position, futures order and liquidation events of this futures contract (exact match)',
				},
				{
					description:
						'Only position, futures order and liquidation events of this futures contract',
				},
			),
		],
	},
	optionsCollection([
		pickerField(2, 'tradingAccounts', {
			displayName: 'Account',
			name: 'account',
			type: 'string',
			default: '',
			description:
				'Trading account whose orders start the workflow. Empty: the API key’s own trading account (a master key’s main one); the real-time stream carries no other.',
		}),
		{
			displayName: 'Report Outage After (Minutes)',
			name: 'outageReportMinutes',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: MAX_OUTAGE_REPORT_MINUTES },
			default: DEFAULT_OUTAGE_REPORT_MINUTES,
			description:
				'When the stream stays unreachable this long, the trigger saves a failed execution (and runs the error workflow) while it keeps reconnecting',
		},
	]),
];

export class TradingServiceRealTimeTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Trading Service Real-Time Trigger',
		name: 'tradingServiceRealTimeTrigger',
		icon: { light: 'file:tradingService.svg', dark: 'file:tradingService.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: '={{ $parameter["events"].join(", ") }}',
		description:
			'Starts the workflow the moment an order of yours fills, is cancelled or changes, a balance changes, or a futures order or position changes',
		defaults: { name: 'Trading Service Real-Time Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: CREDENTIAL_TYPE, required: true }],
		properties,
	};

	methods = { listSearch: { searchSymbols, searchCoins, searchContracts, searchTradingAccounts } };

	async trigger(this: ITriggerFunctions): Promise<ITriggerResponse> {
		const node = this.getNode();
		const settings = readStreamSettings(this);
		const WebSocket = runtimeWebSocket();
		if (WebSocket === undefined)
			throw new NodeOperationError(
				node,
				'This n8n runs on a Node.js without a built-in WebSocket',
				{
					description:
						'The real-time trigger needs Node.js 22 or later (n8n 2.x runs on Node.js 24). Upgrade n8n, or use the Trading Service Trigger, which polls.',
				},
			);
		const credentials = await this.getCredentials(CREDENTIAL_TYPE);
		const address = streamAddressOf(credentials.baseUrl, credentials.streamUrl);
		if (!address.ok)
			throw new NodeOperationError(node, address.problem, { description: address.fix });
		const client = new ServiceClient(this);
		const session = new StreamSession(this, client, settings, address.url, WebSocket);
		await session.start();
		return { closeFunction: async () => await session.stop() };
	}
}
