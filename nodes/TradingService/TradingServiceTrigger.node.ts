import {
	NodeConnectionTypes,
	type INodeExecutionData,
	type INodeProperties,
	type INodePropertyOptions,
	type INodeType,
	type INodeTypeDescription,
	type IPollFunctions,
} from 'n8n-workflow';

import { FLOW_TYPES } from './helpers/flowTypes';
import { optionsCollection } from './descriptions/common';
import { ACCOUNT_TYPE_OPTIONS } from './account/accountProperties';
import { pickerField, type NodeVersion } from './descriptions/pickers';
import { searchCoins } from './methods/listSearch';
import { EVENTS_WITH_DIRECTION } from './trigger/filters';
import { pollTradingService } from './trigger/poll';
import {
	DEFAULT_LATE_WINDOW_MINUTES,
	MAX_LATE_WINDOW_MINUTES,
	ORDER_FILLED,
} from './trigger/settings';

const ORDER_FILLED_NAME = 'Order Filled';

/**
 * What the subtitle shows for each event, by value: a flow type number (a workflow saved with one
 * keeps it), or Order Filled's string.
 */
const EVENT_NAMES: Record<string, string> = {
	...Object.fromEntries(FLOW_TYPES.map((flowType) => [flowType.value, flowType.eventName])),
	[ORDER_FILLED]: ORDER_FILLED_NAME,
};

const eventOptions: INodePropertyOptions[] = [
	...FLOW_TYPES.map((flowType) => ({
		name: flowType.eventName,
		value: flowType.value,
		description: `${flowType.eventDetail}. The exchange keeps these records for ${flowType.retentionDays} days.`,
	})),
	{
		name: ORDER_FILLED_NAME,
		value: ORDER_FILLED,
		description:
			"Every fill of one of your orders (a trade from the account's trade list), partial fills included: one item per fill. The exchange keeps fills for 30 days.",
	},
].sort((a, b) => a.name.localeCompare(b.name));

/** Shown for every event but Order Filled (history records only). */
const NOT_FOR_FILLS = { hide: { event: [ORDER_FILLED] } };

/**
 * The Filters collection. Version 2 picks the Coin from a list; the Symbol stays typed text, as the
 * records that carry one (funding fees) name futures contracts, which the spot symbol list lacks.
 */
function filtersOf(version: NodeVersion): INodeProperties[] {
	return [
		{
			displayName: 'Filters',
			name: 'filters',
			type: 'collection',
			placeholder: 'Add Filter',
			default: {},
			displayOptions: { show: { '@version': [version] } },
			options: [
				pickerField(
					version,
					'coins',
					{
						displayName: 'Coin',
						name: 'coin',
						type: 'string',
						default: '',
						placeholder: 'e.g. USDT',
						description:
							'Only records whose coin is exactly this. The match is exact and case-sensitive: "usdt" does not match USDT. Not for Order Filled: a fill has no single coin, so the trigger refuses it there (use Symbol).',
					},
					{
						description:
							'Only records of this coin. Not for Order Filled: a fill has no single coin, so the trigger refuses it there (use Symbol).',
					},
				),
				{
					displayName: 'Symbol',
					name: 'symbol',
					type: 'string',
					default: '',
					placeholder: 'e.g. BTCUSDT-PERPETUAL',
					description:
						'Only records whose symbol is exactly this (exact, case-sensitive). Funding fee records carry a symbol; records without one never match. For Order Filled, the trading pair of the fills (e.g. BTCUSDT), also sent to the exchange.',
				},
			],
		},
	];
}

const properties: INodeProperties[] = [
	{
		displayName:
			'Fires once for every new record of the chosen kind in the account history (or every new fill of your orders, for Order Filled), oldest first. The first poll after activation only remembers what already exists; use Fetch Test Event to see the latest record.',
		name: 'notice',
		type: 'notice',
		default: '',
	},
	{
		displayName: 'Event',
		name: 'event',
		type: 'options',
		required: true,
		default: 32,
		options: eventOptions,
		description:
			'Which kind of account history record starts the workflow, or Order Filled: every fill of your orders',
	},
	{
		displayName: 'Account Type',
		name: 'accountType',
		type: 'options',
		default: 0,
		options: ACCOUNT_TYPE_OPTIONS,
		description:
			'Only records of this kind of account. Custody account records need a master-account API key.',
		displayOptions: NOT_FOR_FILLS,
	},
	{
		displayName: 'Direction',
		name: 'direction',
		type: 'options',
		default: 'both',
		options: [
			{
				name: 'Both',
				value: 'both',
				description:
					'Every record. A transfer between two of your accounts shows up twice with a master key: once per account.',
			},
			{
				name: 'Incoming',
				value: 'incoming',
				description: 'Only credits: records with a positive change',
			},
			{
				name: 'Outgoing',
				value: 'outgoing',
				description: 'Only debits: records with a negative change',
			},
		],
		description: 'Whether money came in, went out, or either',
		displayOptions: { show: { event: EVENTS_WITH_DIRECTION } },
	},
	...filtersOf(1),
	...filtersOf(2),
	optionsCollection([
		{
			displayName: 'Late Records Window (Minutes)',
			name: 'lateWindowMinutes',
			type: 'number',
			typeOptions: { minValue: 0, maxValue: MAX_LATE_WINDOW_MINUTES },
			default: DEFAULT_LATE_WINDOW_MINUTES,
			description:
				'How far behind the newest record (or fill) each poll looks again, for records the service lists late. A record that shows up later than this after its time is not emitted.',
		},
	]),
];

export class TradingServiceTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Trading Service Trigger',
		name: 'tradingServiceTrigger',
		icon: { light: 'file:tradingService.svg', dark: 'file:tradingService.dark.svg' },
		group: ['trigger'],
		version: [1, 2],
		defaultVersion: 2,
		subtitle: `={{ ${JSON.stringify(EVENT_NAMES)}[$parameter["event"]] }}`,
		description:
			'Starts the workflow when funding fees, transfers, deposits, withdrawals, trades or fees appear in the Trading Service account history, or when your orders fill',
		defaults: { name: 'Trading Service Trigger' },
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'tradingServiceApi', required: true }],
		properties,
	};

	methods = { listSearch: { searchCoins } };

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		return await pollTradingService.call(this);
	}
}
