import { relative } from 'node:path';
import type { CallSite, ChatRequest, ModelClient, ModelResponse } from '../model/types.js';
import { canonicalJson, keyOfCanonical } from './canonical.js';
import { MissingRecording, requestDiff } from './missing-recording.js';
import type { Recording } from './recording.js';

/**
 * A model client that answers only from a recording, by request key. A request with no
 * recording throws {@link MissingRecording}; there is no live fallback.
 */
export class ReplayClient implements ModelClient {
  /** @param agent the agent name, used in the re-record hint. */
  constructor(
    /** The recording it answers from. */
    readonly recording: Recording,
    private readonly agent: string,
  ) {}

  async complete(request: ChatRequest, site: CallSite): Promise<ModelResponse> {
    const canonical = canonicalJson(request);
    const key = keyOfCanonical(canonical);
    const call = this.recording.lookup(key, site, canonical, request);
    if (call) return { key, reply: call.reply, usage: call.usage };
    const nearest = this.recording.atSite(site);
    throw new MissingRecording(
      this.recording.name,
      site,
      key,
      nearest && requestDiff(nearest.request, request),
      nearest && relative(process.cwd(), nearest.where),
      this.agent,
      this.recording.manifest.recorder,
    );
  }
}
