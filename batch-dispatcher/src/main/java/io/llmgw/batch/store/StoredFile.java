package io.llmgw.batch.store;

/**
 * An uploaded or generated file's metadata, as OpenAI's file object carries it.
 *
 * @param owner the tenant it belongs to ({@code ""} when the service has no tenants): no other tenant sees it
 */
public record StoredFile(String id, String purpose, String filename, long bytes, long createdAt, String owner) {
  public StoredFile {
    owner = owner == null ? "" : owner;
  }

  /** A file of a service without tenants. */
  public StoredFile(String id, String purpose, String filename, long bytes, long createdAt) {
    this(id, purpose, filename, bytes, createdAt, "");
  }
}
