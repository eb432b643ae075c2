import type { Platform } from '../domain.js';
import type { TokenUsage } from './chat-completions.js';
import type { UsageMeter } from './usage-meter.js';

/** The slice of Brand Memory a model needs to write in the brand's voice. */
export interface VoiceInput {
  brandName: string;
  summary: string;
  do: string[];
  avoid: string[];
  bannedWords: string[];
  styleRules: string[];
  audiences: string[];
  products: string[];
  examplePosts: string[];
  /** Knowledge notes the brand keeps (facts, stories, excerpts); real models draw on them. */
  knowledge?: { title: string; body: string }[];
}

export interface SignalInput {
  id: string;
  kind: string;
  title: string;
  summary: string;
}

export interface SuggestedIdea {
  title: string;
  angle: string;
  notes: string;
  signalId: string;
}

/**
 * What a model does for the content service. The simulated model implements it now; a real
 * adapter implements the same interface later, so services never know which one runs.
 */
export interface ContentModel {
  readonly kind: 'simulated' | 'real';
  suggestIdeas(input: {
    voice: VoiceInput;
    signals: SignalInput[];
    count: number;
    existingTitles: string[];
    /** Hears each answer's token usage (an agent run's step); see usage-meter.ts. */
    meter?: UsageMeter;
  }): Promise<SuggestedIdea[]>;
  draft(input: {
    voice: VoiceInput;
    platform: Platform;
    idea: { title: string; angle: string | null; notes: string | null };
    /** Set when repurposing: the text of the source post. */
    sourceText?: string;
    /** Which take this is (the draft's version before this one); another take gives other text. */
    take?: number;
    meter?: UsageMeter;
  }): Promise<{ parts: string[]; usage?: TokenUsage }>;
  rewrite(input: {
    voice: VoiceInput;
    platform: Platform;
    parts: string[];
    instruction: string;
    /** Which take this is; asking again for the same rewrite gives another one. */
    take?: number;
    meter?: UsageMeter;
  }): Promise<{ parts: string[]; usage?: TokenUsage }>;
}
