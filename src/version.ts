/** The plugin's name and version, written into team state and shown in the UI. */
export const PLUGIN_NAME = 'dsh-bot-team'
export const PLUGIN_VERSION = '0.2.0'
