import { NodeOperationError, type ITriggerFunctions } from 'n8n-workflow';

import { STREAM_TIMINGS, type Activation } from './activation';

/**
 * When the stream stays unreachable for the Report Outage After minutes, the trigger saves one
 * failed execution (so the error workflow runs) and the log says why, while it keeps reconnecting.
 */
export class Outage {
	/** When the connection was first lost; undefined while connected. */
	private since?: number;
	private reported = false;

	constructor(private readonly activation: Activation) {}

	/** Connected (again). */
	end(): void {
		if (this.reported)
			this.activation.log.info(
				'the stream is back; what happened during the outage was read over REST',
			);
		this.since = undefined;
		this.reported = false;
	}

	/** The connection ended or could not be made, for `problem`: reported once, when it lasted. */
	continue(problem: string): void {
		const { clock, settings } = this.activation;
		this.since ??= clock.now();
		const limitMs = settings.outageReportMinutes * STREAM_TIMINGS.minuteMs;
		if (this.reported || clock.now() - this.since < limitMs) return;
		reportOutage(this.activation, this.since, problem);
		this.reported = true;
	}
}

export function reportOutage(
	{ context, node, clock, log }: Activation,
	since: number,
	problem: string,
): void {
	const minutes = Math.max(1, Math.round((clock.now() - since) / STREAM_TIMINGS.minuteMs));
	const error = new NodeOperationError(
		node,
		`The exchange's real-time stream has been unreachable for ${minutes} minute${minutes === 1 ? '' : 's'}`,
		{
			description: `Last problem: ${problem}. The trigger keeps reconnecting; when the stream is back it reads the orders of the outage over REST, so no order event is lost. Check the Base URL and Stream URL of the credential and the exchange's status.`,
		},
	);
	const saveFailed = (context as Partial<ITriggerFunctions>).saveFailedExecution;
	if (typeof saveFailed === 'function') saveFailed.call(context, error);
	log.error(`${error.message}. ${error.description ?? ''}`);
}
