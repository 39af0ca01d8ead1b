package io.llmgw.picker.routed;

/**
 * Prompt blocks one replica routed to a pod that its index had not seen there: what it tells its peers.
 *
 * @param blockBytes the block size they were hashed with, which names the index they belong to
 * @param address the pod
 * @param blocks chained block hashes, in prompt order
 */
public record RoutedBlocks(int blockBytes, String address, long[] blocks) {}
