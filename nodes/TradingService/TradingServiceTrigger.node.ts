import {
	NodeConnectionTypes,
	type INodeExecutionData,
	type INodeProperties,
	type INodeType,
	type INodeTypeDescription,
	type IPollFunctions,
} from 'n8n-workflow';

import { FLOW_TYPES } from './constants';
import { optionsCollection } from './descriptions/common';
import { ACCOUNT_TYPE_OPTIONS } from './descriptions/account';
import { pickerField, type NodeVersion } from './descriptions/pickers';
import { searchCoins } from './methods/listSearch';
import { EVENTS_WITH_DIRECTION } from './trigger/filters';
import { pollTradingService } from './trigger/poll';
import { DEFAULT_LATE_WINDOW_MINUTES, MAX_LATE_WINDOW_MINUTES } from './trigger/settings';

/** What the subtitle shows for each event, by flow type value. */
const EVENT_NAMES: Record<number, string> = Object.fromEntries(
	FLOW_TYPES.map((flowType) => [flowType.value, flowType.eventName]),
);

const eventOptions = FLOW_TYPES.map((flowType) => ({
	name: flowType.eventName,
	value: flowType.value,
	description: `${flowType.eventDetail}. The exchange keeps these records for ${flowType.retentionDays} days.`,
})).sort((a, b) => a.name.localeCompare(b.name));

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
							'Only records whose coin is exactly this. The match is exact and case-sensitive: "usdt" does not match USDT.',
					},
					{ description: 'Only records of this coin' },
				),
				{
					displayName: 'Symbol',
					name: 'symbol',
					type: 'string',
					default: '',
					placeholder: 'e.g. BTCUSDT-PERPETUAL',
					description:
						'Only records whose symbol is exactly this (exact, case-sensitive). Funding fee records carry a symbol; records without one never match.',
				},
			],
		},
	];
}

const properties: INodeProperties[] = [
	{
		displayName:
			'Fires once for every new record of the chosen kind in the account history, oldest first. The first poll after activation only remembers what already exists; use Fetch Test Event to see the latest record.',
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
		description: 'Which kind of account history record starts the workflow',
	},
	{
		displayName: 'Account Type',
		name: 'accountType',
		type: 'options',
		default: 0,
		options: ACCOUNT_TYPE_OPTIONS,
		description:
			'Only records of this kind of account. Custody account records need a master-account API key.',
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
				'How far behind the newest record each poll looks again, for records the service lists late. A record that shows up later than this after its time is not emitted.',
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
			'Starts the workflow when funding fees, transfers, deposits, withdrawals, trades or fees appear in the Trading Service account history',
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
