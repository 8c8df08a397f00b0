import {
	VersionedNodeType,
	type INodeTypeBaseDescription,
	type IVersionedNodeType,
} from 'n8n-workflow';

import { TradingServiceV1 } from './v1/TradingServiceV1';
import { TradingServiceV2 } from './v2/TradingServiceV2';

/** Version 2 is what new workflows get; version 1 keeps its parameters, so saved workflows run. */
export class TradingService extends VersionedNodeType {
	constructor() {
		const baseDescription: INodeTypeBaseDescription = {
			displayName: 'Trading Service',
			name: 'tradingService',
			icon: { light: 'file:tradingService.svg', dark: 'file:tradingService.dark.svg' },
			group: ['transform'],
			description:
				'Place, get, list and cancel spot orders, read prices, order books, candles, symbol rules and your fills, read balances and account history, and transfer assets on the Trading Service',
			defaultVersion: 2,
		};
		const nodeVersions: IVersionedNodeType['nodeVersions'] = {
			1: new TradingServiceV1(baseDescription),
			2: new TradingServiceV2(baseDescription),
		};
		super(nodeVersions, baseDescription);
	}
}
