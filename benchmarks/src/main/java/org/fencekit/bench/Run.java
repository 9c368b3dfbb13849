package org.fencekit.bench;

/**
 * What the report and the charts say about one run of the main job.
 *
 * @param profile how long and how often it measured
 * @param command the command that ran, as a user would type it again
 * @param servers which server variables were set (names only, never values)
 * @param started when it started, UTC, to the minute
 * @param machine the machine ({@link Comparison#machine()})
 * @param load the load average before and after the run
 */
record Run(
    Profile profile, String command, String servers, String started, String machine, String load) {}
