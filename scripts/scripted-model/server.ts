// placeholder
export {}
