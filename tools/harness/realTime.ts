/**
 * The one way to run the Trading Service Real-Time Trigger in-process: its node wired into
 * n8n-core's real trigger path (TriggersAndPollers.runTriggerFunction with a real TriggerContext:
 * real request helpers, the credential's own `authenticate`, static data of a real Workflow)
 * against a sandbox. What n8n's trigger factory does around it is done here as n8n 2.41.1 does
 * it: the static data is saved (a JSON copy, `saved`) at the end of the activation and at every
 * emit, *before* the execution is created; an execution is created unless one with the same
 * deduplication key exists (`executions`, `duplicates`). Deactivation saves nothing.
 *
 * Node 20 (the dev machine) has no WebSocket global; the dev-only `ws` client stands in for it,
 * as Node 22+'s does in n8n.
 */
import { mock } from 'jest-mock-extended';
import { TriggerContext, TriggersAndPollers } from 'n8n-core';
import {
	Workflow,
	type IDataObject,
	type INode,
	type INodeExecutionData,
	type ITriggerResponse,
	type IWorkflowExecuteAdditionalData,
} from 'n8n-workflow';
import { WebSocket as DevWebSocket } from 'ws';

import { TradingServiceApi } from '../../credentials/TradingServiceApi.credentials';
import { TradingServiceRealTimeTrigger } from '../../nodes/TradingService/TradingServiceRealTimeTrigger.node';
import type { Sandbox } from '../../sandbox';
import { TestCredentialsHelper } from './credentials';
import { credentialsFor } from './node';
import { TestNodeTypes } from './workflow';

export const REAL_TIME_TYPE = 'n8n-nodes-trading-service.tradingServiceRealTimeTrigger';

/** Gives this process the WebSocket global n8n's Node has (idempotent). */
export function installWebSocketGlobal(): void {
	const holder = globalThis as { WebSocket?: unknown };
	if (holder.WebSocket === undefined) holder.WebSocket = DevWebSocket;
}

export interface RealTimeRunnerOptions {
	parameters?: IDataObject;
	/** The workflow's static data to start from: `saved` of an earlier runner is a restart. */
	staticData?: IDataObject;
	credentials?: IDataObject;
	/** Deduplication keys of executions that exist already (n8n's database across a restart). */
	existingKeys?: Set<string>;
	/**
	 * From this emit on (0-based), the process "dies" between saving the static data and creating
	 * the execution: the state is saved, no execution is created.
	 */
	loseExecutionsFrom?: number;
}

export interface EmittedExecution {
	items: INodeExecutionData[];
	deduplicationKey?: string;
	at: number;
}

export function realTimeNode(parameters: IDataObject = {}): INode {
	return {
		id: 'real-time-node-1',
		name: 'Trading Service Real-Time Trigger',
		type: REAL_TIME_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters: { events: ['orderFilled'], ...parameters } as INode['parameters'],
		credentials: { tradingServiceApi: { id: '1', name: 'Trading Service account' } },
	};
}

export class RealTimeRunner {
	readonly workflow: Workflow;
	readonly node: INode;
	/** Executions created, in order. */
	readonly executions: EmittedExecution[] = [];
	/** Emits n8n refused because an execution with that key exists. */
	readonly duplicates: string[] = [];
	/** Failed executions the trigger saved (outage reports). */
	readonly failures: Error[] = [];
	/** Errors the trigger handed to emitError. */
	readonly fatal: Error[] = [];
	/** The static data as last saved by an emit (what a restart starts from). */
	saved?: IDataObject;
	readonly keys: Set<string>;
	private emits = 0;
	private response?: ITriggerResponse;

	constructor(
		private readonly sandbox: Sandbox,
		private readonly options: RealTimeRunnerOptions = {},
	) {
		installWebSocketGlobal();
		this.node = realTimeNode(options.parameters);
		this.keys = options.existingKeys ?? new Set();
		this.workflow = new Workflow({
			id: 'real-time-test-workflow',
			name: 'Real-Time Test Workflow',
			nodes: [this.node],
			connections: {},
			nodeTypes: new TestNodeTypes({ [REAL_TIME_TYPE]: new TradingServiceRealTimeTrigger() }),
			active: true,
			staticData:
				options.staticData === undefined ? undefined : structuredClone(options.staticData),
			settings: {},
		});
	}

	private additionalData(): IWorkflowExecuteAdditionalData {
		const additionalData = mock<IWorkflowExecuteAdditionalData>() as IWorkflowExecuteAdditionalData;
		Object.assign(additionalData, {
			credentialsHelper: new TestCredentialsHelper(
				{ tradingServiceApi: new TradingServiceApi() },
				{
					tradingServiceApi: {
						...credentialsFor(this.sandbox),
						...this.options.credentials,
					} as never,
				},
			),
			currentNodeParameters: undefined,
			executionId: undefined,
			executionContext: undefined,
		});
		return additionalData;
	}

	private saveStaticData(): void {
		this.saved = JSON.parse(JSON.stringify(this.workflow.staticData)) as IDataObject;
	}

	/** Activates the workflow: n8n calls `trigger()`; an error fails the activation (thrown here). */
	async activate(mode: 'trigger' | 'manual' = 'trigger'): Promise<ITriggerResponse> {
		const additionalData = this.additionalData();
		const getTriggerFunctions = (workflow: Workflow, node: INode) =>
			new TriggerContext(
				workflow,
				node,
				additionalData,
				mode,
				mode === 'manual' ? 'manual' : 'activate',
				(data: INodeExecutionData[][], _response?: unknown, _done?: unknown, key?: string) => {
					this.saveStaticData();
					const lostFrom = this.options.loseExecutionsFrom;
					if (lostFrom !== undefined && this.emits++ >= lostFrom) return;
					if (key !== undefined && this.keys.has(key)) {
						this.duplicates.push(key);
						return;
					}
					if (key !== undefined) this.keys.add(key);
					this.executions.push({ items: data[0] ?? [], deduplicationKey: key, at: Date.now() });
				},
				(error: Error) => {
					this.fatal.push(error);
				},
				(error: Error) => {
					this.failures.push(error);
				},
			);
		const response = await new TriggersAndPollers().runTriggerFunction(
			this.workflow,
			this.node,
			getTriggerFunctions as never,
			additionalData,
			mode,
			mode === 'manual' ? 'manual' : 'activate',
		);
		this.response = response ?? {};
		if (mode === 'trigger') this.saveStaticData();
		return this.response;
	}

	/** Deactivates the workflow: n8n calls the close function (and saves no static data). */
	async deactivate(): Promise<void> {
		const response = this.response;
		this.response = undefined;
		await response?.closeFunction?.();
	}

	/** The items emitted so far, one per execution. */
	items(): IDataObject[] {
		return this.executions.map((execution) => execution.items[0]?.json ?? {});
	}

	async waitFor(condition: () => boolean, timeoutMs = 10_000, what = 'condition'): Promise<void> {
		const deadline = Date.now() + timeoutMs;
		while (!condition()) {
			if (Date.now() > deadline) throw new Error(`${what} not met within ${timeoutMs} ms`);
			await new Promise((resolve) => setTimeout(resolve, 20));
		}
	}
}
