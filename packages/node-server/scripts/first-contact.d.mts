/** See `first-contact.mjs`: one first contact with the built server at `bin`, then SIGTERM and exit. */
export function firstContact(options: {
  bin: string;
  node?: string;
  env?: Record<string, string>;
}): Promise<void>;
