/**
 * The floor for bench 1: a node that does nothing but n8n's own signed request helper
 * (httpRequestWithAuthentication with the package's credential) once per input item, with the
 * same query parameters the Trading Service node sends. node / floor is what the package's own
 * code (parameters, validation, transport, retry bookkeeping) costs; floor / bare is what n8n's
 * workflow engine and request stack cost.
 */
import {
	NodeConnectionTypes,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';

export const FLOOR_NODE_TYPE = 'bench.floor';

export class FloorNode implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Bench Floor',
		name: 'benchFloor',
		group: ['transform'],
		version: 1,
		description: 'One signed history request per item via n8n helpers, nothing else',
		defaults: { name: 'Bench Floor' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'tradingServiceApi', required: true }],
		properties: [{ displayName: 'Query', name: 'query', type: 'json', default: '{}' }],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const qs = JSON.parse(this.getNodeParameter('query', 0) as string) as IDataObject;
		const out: INodeExecutionData[] = [];
		for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
			const records = (await this.helpers.httpRequestWithAuthentication.call(
				this,
				'tradingServiceApi',
				{
					method: 'GET',
					url: '/api/v1/account/balanceFlow',
					qs,
					json: true,
				},
			)) as IDataObject[];
			for (const record of records) out.push({ json: record, pairedItem: { item: itemIndex } });
		}
		return [out];
	}
}
